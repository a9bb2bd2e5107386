"""One composition, two ways to run it (DESIGN.md).

Flows call their steps through `call` and `fan_out`. Inside a real flow run they use Prefect's task
submission (retries, concurrency limits, the dashboard); outside one they call the task's function
directly, in a thread pool for parallel groups, with the same transient-only retry policy. Calling a
`@task` object outside a flow run would silently start a temporary server, so inline mode never does.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from prefect.context import FlowRunContext
from prefect.futures import as_completed

from agentuse.core.helper.deadline import DeadlineError
from agentuse.core.helper.protocol import HelperError
from agentuse.core.tidy_state import Failure
from agentuse.tasks.retry import retry_inline

INLINE_WORKERS = 8

# "raise": the first error (in input order) is raised once every item has finished.
# "collect": a model fault that outlived its retries (`HelperError`) becomes that item's `Failure`, so one
# failed call fails only its own item; any other error is still raised once every item has finished.
OnError = Literal["raise", "collect"]


def orchestrated() -> bool:
    return FlowRunContext.get() is not None


def prefect_requested(force: bool = False) -> bool:
    """Real flow runs when a Prefect API is configured (or `--prefect` forces a temporary server)."""
    return force or bool(os.environ.get("PREFECT_API_URL"))


def run_flow(flow: Any, *, force_prefect: bool = False, **params: Any) -> Any:
    if prefect_requested(force_prefect):
        if not os.environ.get("PREFECT_API_URL"):
            stop_temporary_server_on_signals()
        return flow(**params)
    return flow.fn(**params)


TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def stop_temporary_server_on_signals() -> None:
    """SIGTERM and SIGHUP end the command the way Ctrl-C does, so the temporary Prefect server stops too.

    Prefect stops its temporary server from an atexit hook, which runs when the interpreter unwinds (as
    after Ctrl-C's KeyboardInterrupt) but not when a default SIGTERM/SIGHUP kills it: its uvicorn child was
    left running under PID 1, still listening. The handlers stay for the rest of the process, since the
    server does too; a second signal is ignored so it cannot cut the shutdown short. Only the main thread
    may install handlers: a flow run from a worker thread (serve's background jobs) leaves them alone."""
    if threading.current_thread() is not threading.main_thread():
        return

    def interrupt(signum: int, frame: Any) -> None:
        for sig in TERMINATING_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")

    for sig in TERMINATING_SIGNALS:
        signal.signal(sig, interrupt)


def as_failure(error: HelperError, operation: str = "") -> Failure:
    """The step's failure, as the core reads it: could not be vetted/planned/written, keep what was there."""
    spent = "" if isinstance(error, DeadlineError) else " (retries exhausted)"  # it says why already
    return Failure(operation=error.operation or operation or "model", message=f"{error}{spent}")


def call(task: Any, *args: Any, on_error: OnError = "raise", **kwargs: Any) -> Any:
    """Run one step: a task run under orchestration, a retried plain call otherwise.
    `on_error="collect"` returns a `Failure` instead of raising a `HelperError`."""
    try:
        if orchestrated():
            return task(*args, **kwargs)
        return _inline_with_retries(task, lambda: task.fn(*args, **kwargs))
    except HelperError as error:
        if on_error != "collect":
            raise
        return as_failure(error, task.name)


@dataclass(frozen=True)
class _Raised:
    error: BaseException


def fan_out(task: Any, items: Sequence[Any], *, limit: int | None = None, on_error: OnError = "raise",
            on_result: Callable[[Any, Any], None] | None = None, **kwargs: Any) -> list[Any]:
    """Run `task(item, **kwargs)` for every item in parallel; results in input order.

    Every item runs to the end and every future is resolved before anything is raised: a failed
    `.submit()` that is never resolved leaves the flow Completed, and a sibling's finished result must not
    be lost with it. `on_error` says what a failed item gives (see `OnError`). `limit` bounds the calls in
    flight: under orchestration a sliding window of submissions (a new one as each finishes, the same on
    any task runner, Dask included); inline, the thread pool's size.

    `on_result(item, result)` hears each call as it finishes (a collected `Failure` too), in the order they
    finish, from whichever thread saw it finish (a pool worker inline; this one under orchestration): a
    caller that counts must lock. An item that raises is not reported."""
    if not items:
        return []
    bound = max(1, limit) if limit is not None else None

    def settle(item: Any, get: Callable[[], Any]) -> Any:
        try:
            result = get()
        except HelperError as error:
            if on_error != "collect":
                return _Raised(error)
            result = as_failure(error, task.name)
        except Exception as error:  # noqa: BLE001 - raised below, once every item has finished
            return _Raised(error)
        if on_result is not None:
            on_result(item, result)
        return result

    if orchestrated():
        outcomes = _submitted(task, items, bound, settle, kwargs)
    else:
        workers = min(bound or INLINE_WORKERS, len(items))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"agentuse-{task.name}") as pool:
            pending = [pool.submit(settle, item, lambda item=item: call(task, item, **kwargs)) for item in items]
        outcomes = [future.result() for future in pending]  # all finished: the pool waited on leaving
    raised = next((o.error for o in outcomes if isinstance(o, _Raised)), None)
    if raised is not None:
        raise raised
    return outcomes


def _submitted(task: Any, items: Sequence[Any], bound: int | None, settle: Callable[[Any, Any], Any],
               kwargs: dict[str, Any]) -> list[Any]:
    """Prefect submission, at most `bound` in flight; each future is resolved as it finishes."""
    outcomes: list[Any] = [None] * len(items)
    running: dict[Any, int] = {}
    queued = iter(range(len(items)))
    for index in queued:
        running[task.submit(items[index], **kwargs)] = index
        if bound is not None and len(running) >= bound:
            break
    while running:
        future = next(as_completed(list(running)))
        index = running.pop(future)
        outcomes[index] = settle(items[index], future.result)
        following = next(queued, None)
        if following is not None:
            running[task.submit(items[following], **kwargs)] = following
    return outcomes


def _inline_with_retries(task: Any, attempt: Callable[[], Any]) -> Any:
    delays = _delays(task)
    return retry_inline(attempt, delays=delays) if delays else attempt()


def _delays(task: Any) -> list[float]:
    retries = int(getattr(task, "retries", 0) or 0)
    configured = getattr(task, "retry_delay_seconds", None) or 0
    if callable(configured):
        configured = configured(retries)
    if isinstance(configured, (int, float)):
        return [float(configured)] * retries
    return [float(d) for d in list(configured)[:retries]]
