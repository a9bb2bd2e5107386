"""Retry policy shared by every task that calls a model: transient faults only, exponential backoff, all
attempts of one call inside its deadline (core/helper/deadline.py), one line on stderr per retry; and
the retry condition Prefect is given for it (tasks/step.py declares the policy itself).

Prefect is never imported here: this module is also read for MODEL_TAG by deployment preflight, and the
inline runner uses it, and both must stay light."""

from __future__ import annotations

import contextvars
import functools
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from agentuse.core.helper import deadline
from agentuse.core.helper.protocol import HelperError, PermanentHelperError
from agentuse.core.failure import Failure

A = TypeVar("A")

MODEL_TAG = "agentuse-model"  # operators put a tag concurrency limit on this (README, Deployments)
MODEL_RETRIES = 3


def backoff_delays() -> list[float]:
    """Exponential backoff; the base is configurable so tests and CI do not sleep."""
    base = float(os.environ.get("AGENTUSE_RETRY_BASE_SECONDS", "2"))
    return [base * 2**attempt for attempt in range(MODEL_RETRIES)]


def is_transient(error: BaseException | None) -> bool:
    return isinstance(error, HelperError) and error.transient


def announce_retry(error: HelperError, delay: float, attempt: int, attempts: int) -> None:
    """The one line a retry prints, instead of silence: `model overloaded, retrying in 2 s (2 of 4)…`."""
    print(f"model {error.reason}, retrying in {delay:g} s ({attempt} of {attempts})…", file=sys.stderr,
          flush=True)


def _no_time_for(delay: float) -> bool:
    scope = deadline.call_remaining()
    return scope is not None and scope[0] <= delay


def _no_time_left(error: HelperError, delay: float) -> deadline.DeadlineError:
    """The deadline's own error for a retry that does not fit. When it is the server's retry-after that
    does not fit (a 529 asking for an hour), it says so: 'did not answer in time' would have the person
    raise the deadline, which an hour's wait would not fit either."""
    scope = deadline.call_remaining()
    limit = scope[1] if scope else 0
    asked = error.retry_after
    if asked is None or asked < delay:
        return deadline.too_late(error.operation, deadline.CALL_DEADLINE_VARIABLE, limit)
    wait = f"{asked:g} s" if math.isfinite(asked) else "for ever"
    return deadline.DeadlineError(f"{error}, and asked to wait {wait} before another try: past "
                                  f"{deadline.CALL_DEADLINE_VARIABLE}={limit:g} s, so it was not retried",
                                  operation=error.operation)


def retry_inline(attempt: Callable[[], A], *, delays: list[float],
                 retry_if: Callable[[BaseException | None], bool] = is_transient) -> A:
    """Outside a flow run: the same policy as Prefect's task retries (the step's declared `retry_if`), all
    attempts inside one call scope. A fault worth retrying with no time left for another attempt is raised
    as the deadline's own error."""
    with deadline.call_scope(deadline.Limits.from_env().call):
        for retry in range(len(delays) + 1):
            try:
                return attempt()
            except HelperError as error:
                if not retry_if(error) or retry >= len(delays):
                    raise
                delay = max(delays[retry], error.retry_after or 0.0)  # never sooner than the server asked
                if _no_time_for(delay):
                    raise _no_time_left(error, delay) from error
                announce_retry(error, delay, retry + 2, len(delays) + 1)
                time.sleep(delay)
    raise AssertionError("unreachable")


# Under a flow run Prefect makes the attempts; the call's deadline is kept per task run, from its first.
_scopes: dict[Any, float] = {}
_scopes_lock = threading.Lock()


def retry_condition(retry_if: Callable[[BaseException | None], bool]) -> Callable[[Any, Any, Any], bool]:
    """Prefect's `retry_condition_fn` for a step's declared `retry_if` (the inline runner obeys the same)."""

    def condition(task, task_run, state) -> bool:
        return transient_only(task, task_run, state, retry_if=retry_if)

    return condition


def transient_only(task, task_run, state, *, retry_if: Callable[[BaseException | None], bool] = is_transient) -> bool:
    """Retry overloaded/rate-limited/timeouts, never a bad answer, and never past the call's deadline."""
    error = getattr(state, "data", None)
    retries = int(getattr(task, "retries", 0) or 0)
    run_count = int(getattr(task_run, "run_count", 0) or 1)  # attempts made so far, this one included
    configured = getattr(task, "retry_delay_seconds", None)
    delays = [float(d) for d in configured] if isinstance(configured, (list, tuple)) else [float(configured or 0)]
    delay = delays[min(run_count - 1, len(delays) - 1)] if delays else 0.0
    if not retry_if(error):
        return False
    # Never sooner than the server asked (as inline): Prefect waits the declared `delay`, this the rest.
    wait = max(delay, error.retry_after or 0.0)
    with _deadline_of(getattr(task_run, "id", None)):
        if _no_time_for(wait):
            return False  # the final state keeps the transient fault: "(retries exhausted)"
    announce_retry(error, wait, run_count + 1, retries + 1)
    if wait > delay:
        time.sleep(wait - delay)
    return True


def _deadline_of(task_run_id: Any):
    """The call scope of a task run: its deadline counts from the first attempt this process saw."""
    now = time.monotonic()
    seconds = deadline.Limits.from_env().call
    with _scopes_lock:
        for key in [k for k, ends in _scopes.items() if ends < now - seconds]:  # long finished: forget
            del _scopes[key]
        ends = _scopes.setdefault(task_run_id, now + seconds) if task_run_id is not None else now + seconds
    return deadline.call_scope(seconds, ends=ends)


def attempts_share_a_deadline(fn: Callable[..., A]) -> Callable[..., A]:
    """Each attempt of a task run runs inside the same call scope (inline, `retry_inline` opens it)."""

    @functools.wraps(fn)
    def attempt(*args: Any, **kwargs: Any) -> A:
        from prefect.context import TaskRunContext

        context = TaskRunContext.get()
        if context is None:
            return fn(*args, **kwargs)
        with _deadline_of(context.task_run.id):
            return fn(*args, **kwargs)

    return attempt


def ask(operation: str, call: Callable[[], A]) -> A | Failure:
    """Transient faults raise (the retry policy retries them); a permanent one becomes a `Failure`."""
    try:
        return call()
    except PermanentHelperError as error:
        return noted(Failure(operation=operation, message=str(error) or type(error).__name__))


# Every step that failed for good and was taken as a `Failure` (here, or by flows/runner once its retries
# ran out), for a pipeline that reports how many: one list, shared by the copies of the context its
# parallel calls run in.
_FAILURES: contextvars.ContextVar[list[Failure] | None] = contextvars.ContextVar("agentuse_failures", default=None)


def noted(failure: Failure) -> Failure:
    if (seen := _FAILURES.get()) is not None:
        seen.append(failure)
    return failure


@contextmanager
def counting_failures() -> Iterator[list[Failure]]:
    seen: list[Failure] = []
    token = _FAILURES.set(seen)
    try:
        yield seen
    finally:
        _FAILURES.reset(token)
