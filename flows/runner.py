"""One composition, two ways to run it (DESIGN.md).

Flows call their steps through `call` and `fan_out`. Inside a real flow run they use Prefect's task
submission (retries, concurrency limits, the dashboard); outside one they call the task's function
directly, in a thread pool for parallel groups, with the same transient-only retry policy. Calling a
`@task` object outside a flow run would silently start a temporary server, so inline mode never does.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from prefect.context import FlowRunContext
from prefect.futures import as_completed

from agentuse.tasks.retry import is_transient

INLINE_WORKERS = 8


def orchestrated() -> bool:
    return FlowRunContext.get() is not None


def prefect_requested(force: bool = False) -> bool:
    """Real flow runs when a Prefect API is configured (or `--prefect` forces a temporary server)."""
    return force or bool(os.environ.get("PREFECT_API_URL"))


def run_flow(flow: Any, *, force_prefect: bool = False, **params: Any) -> Any:
    if prefect_requested(force_prefect):
        return flow(**params)
    return flow.fn(**params)


def call(task: Any, *args: Any, **kwargs: Any) -> Any:
    """Run one step: a task run under orchestration, a retried plain call otherwise."""
    if orchestrated():
        return task(*args, **kwargs)
    return _inline_with_retries(task, lambda: task.fn(*args, **kwargs))


def fan_out(task: Any, items: Sequence[Any], *, on_result: Callable[[Any, Any], None] | None = None,
            **kwargs: Any) -> list[Any]:
    """Run `task(item, **kwargs)` for every item in parallel; results in input order.

    `on_result(item, result)` hears each call as it finishes, in the order they finish, from whichever
    thread saw it finish (a pool worker inline; this one, as futures complete, under orchestration): a
    caller that counts must lock. A call that failed is not reported; its error is raised as before.
    Every future is resolved: a failed `.submit()` that is never resolved leaves the flow Completed."""
    if not items:
        return []
    if orchestrated():
        futures = [task.submit(item, **kwargs) for item in items]
        if on_result is not None:
            item_of = {id(future): item for future, item in zip(futures, items, strict=True)}
            for future in as_completed(futures):
                try:
                    result = future.result()
                except Exception:  # noqa: BLE001 - raised below, in input order, exactly as without a callback
                    continue
                on_result(item_of[id(future)], result)
        return [future.result() for future in futures]

    def one(item: Any) -> Any:
        result = call(task, item, **kwargs)
        if on_result is not None:
            on_result(item, result)
        return result

    workers = min(INLINE_WORKERS, len(items))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"agentuse-{task.name}") as pool:
        return list(pool.map(one, items))


def _inline_with_retries(task: Any, attempt: Callable[[], Any]) -> Any:
    delays = _delays(task)
    for retry in range(len(delays) + 1):
        try:
            return attempt()
        except Exception as error:  # noqa: BLE001 - re-raised unless the policy says retry
            if retry >= len(delays) or not is_transient(error):
                raise
            time.sleep(delays[retry])
    raise AssertionError("unreachable")


def _delays(task: Any) -> list[float]:
    retries = int(getattr(task, "retries", 0) or 0)
    configured = getattr(task, "retry_delay_seconds", None) or 0
    if callable(configured):
        configured = configured(retries)
    if isinstance(configured, (int, float)):
        return [float(configured)] * retries
    return [float(d) for d in list(configured)[:retries]]
