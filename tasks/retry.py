"""Retry policy shared by every task that calls a model: transient faults only, exponential backoff, all
attempts of one call inside its deadline (core/helper/deadline.py), one line on stderr per retry; and
the two task decorators every step is declared with.

Prefect is imported inside the decorators: this module is also read for MODEL_TAG by deployment preflight,
which must stay light."""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from agentuse.core.helper import deadline
from agentuse.core.helper.protocol import HelperError, PermanentHelperError
from agentuse.core.tidy_state import Failure

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


def retry_inline(attempt: Callable[[], A], *, delays: list[float]) -> A:
    """Outside a flow run: the same policy as Prefect's task retries, all attempts inside one call scope.
    A transient fault with no time left for another attempt is raised as the deadline's own error."""
    with deadline.call_scope(deadline.Limits.from_env().call):
        for retry in range(len(delays) + 1):
            try:
                return attempt()
            except HelperError as error:
                if not error.transient or retry >= len(delays):
                    raise
                if _no_time_for(delays[retry]):
                    scope = deadline.call_remaining()
                    raise deadline.too_late(error.operation, deadline.CALL_DEADLINE_VARIABLE,
                                            scope[1] if scope else 0) from error
                announce_retry(error, delays[retry], retry + 2, len(delays) + 1)
                time.sleep(delays[retry])
    raise AssertionError("unreachable")


# Under a flow run Prefect makes the attempts; the call's deadline is kept per task run, from its first.
_scopes: dict[Any, float] = {}
_scopes_lock = threading.Lock()


def transient_only(task, task_run, state) -> bool:
    """Prefect `retry_condition_fn`: retry overloaded/rate-limited/timeouts, never a bad answer, and never
    past the call's deadline."""
    error = getattr(state, "data", None)
    retries = int(getattr(task, "retries", 0) or 0)
    run_count = int(getattr(task_run, "run_count", 0) or 1)  # attempts made so far, this one included
    configured = getattr(task, "retry_delay_seconds", None)
    delays = [float(d) for d in configured] if isinstance(configured, (list, tuple)) else [float(configured or 0)]
    delay = delays[min(run_count - 1, len(delays) - 1)] if delays else 0.0
    if not is_transient(error):
        return False
    with _deadline_of(getattr(task_run, "id", None)):
        if _no_time_for(delay):
            return False  # the final state keeps the transient fault: "(retries exhausted)"
    announce_retry(error, delay, run_count + 1, retries + 1)
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


def _attempts_share_a_deadline(fn: Callable[..., A]) -> Callable[..., A]:
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


def model_task(name: str, run_name: str | None = None) -> Any:
    """A step that calls a model: transient-only retries with backoff inside the call's deadline, the model
    concurrency tag, and no result caching (a helper is not an input worth hashing, and a re-run must ask
    the model again). `run_name` defaults to `<name>/{item.label}`, for steps mapped over labelled items."""
    from prefect import task
    from prefect.cache_policies import NONE

    def decorate(fn: Callable[..., A]) -> Any:
        return task(_attempts_share_a_deadline(fn), name=name, task_run_name=run_name or f"{name}/{{item.label}}",
                    retries=MODEL_RETRIES, retry_delay_seconds=backoff_delays(), retry_condition_fn=transient_only,
                    tags=[MODEL_TAG], cache_policy=NONE)

    return decorate


def plain_task(name: str, run_name: str) -> Any:
    """A step with no model call: no retries, no caching (its inputs are files that change under it)."""
    from prefect import task
    from prefect.cache_policies import NONE

    return task(name=name, task_run_name=run_name, cache_policy=NONE)


def ask(operation: str, call: Callable[[], A]) -> A | Failure:
    """Transient faults raise (the retry policy retries them); a permanent one becomes a `Failure`."""
    try:
        return call()
    except PermanentHelperError as error:
        return Failure(operation=operation, message=str(error) or type(error).__name__)
