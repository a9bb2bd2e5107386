"""Pipeline steps declared as data (DESIGN.md: one composition, two ways to run it).

A step is a plain function plus what an orchestrator needs to know about it — its name, how its runs are
named, and its policy (retries, back-off, which errors are retried, tags, timeout). Nothing here imports
prefect: the inline runner calls `Step.run` under the declared policy, and only a real flow run asks for
`Step.prefect_task()`, which builds the `@task` object from the same declaration the first time.

A step that asks a model (`model=True`) declares a `helper` parameter; the runner supplies the flow's
helper (tasks/helpers.py), so neither Prefect nor the dashboard ever sees a helper object as an input.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentuse.tasks import helpers
from agentuse.tasks.retry import MODEL_RETRIES, MODEL_TAG, attempts_share_a_deadline, backoff_delays, is_transient


@dataclass(frozen=True)
class Policy:
    retries: int = 0
    retry_if: Callable[[BaseException | None], bool] | None = None  # which errors are worth another attempt
    tags: tuple[str, ...] = ()
    timeout_seconds: float | None = None

    def delays(self) -> list[float]:
        """Back-off before each retry; read when a run starts, so tests and CI can set it to zero."""
        return backoff_delays()[: self.retries] if self.retries else []


# A step that asks a model: transient faults only (overloaded, rate-limited, timeouts, connection), with
# exponential back-off inside the call's deadline, under the tag operators put a concurrency limit on.
MODEL = Policy(retries=MODEL_RETRIES, retry_if=is_transient, tags=(MODEL_TAG,))
PLAIN = Policy()  # reads or writes files: nothing a retry would fix, no model slot held


@dataclass(eq=False)
class Step:
    fn: Callable[..., Any]
    name: str
    run_name: str | Callable[[], str]
    policy: Policy = PLAIN
    model: bool = False  # asks the flow's helper: `fn` has a `helper` parameter the runner fills in
    _task: Any = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """One attempt, as a plain call."""
        if self.model:
            kwargs["helper"] = helpers.current()
        return self.fn(*args, **kwargs)

    def prefect_task(self) -> Any:
        """The Prefect task for this step, built on first use from the declaration."""
        with self._lock:
            if self._task is None:
                self._task = _build_task(self)
            return self._task


def step(name: str, run_name: str | Callable[[], str] | None = None, *, model: bool = False) -> Callable:
    """Declare a function as a pipeline step. `run_name` defaults to `<name>/{item.label}`, for steps
    mapped over labelled items; model steps take the MODEL policy, the others PLAIN."""

    def declare(fn: Callable[..., Any]) -> Step:
        return Step(fn=fn, name=name, run_name=run_name or f"{name}/{{item.label}}",
                    policy=MODEL if model else PLAIN, model=model)

    return declare


def _build_task(declared: Step) -> Any:
    from prefect import task
    from prefect.cache_policies import NONE

    from agentuse.tasks.retry import retry_condition

    body = attempts_share_a_deadline(declared.run) if declared.model else declared.run
    # What Prefect records as the task's inputs: the function's own parameters, the helper left out.
    signature = inspect.signature(declared.fn)
    params = [p for name, p in signature.parameters.items() if name != "helper"]

    def run(*args: Any, **kwargs: Any) -> Any:
        return body(*args, **kwargs)

    run.__name__ = run.__qualname__ = getattr(declared.fn, "__name__", declared.name.replace("-", "_"))
    run.__module__ = getattr(declared.fn, "__module__", __name__)
    run.__doc__ = getattr(declared.fn, "__doc__", None)
    run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    policy = declared.policy
    return task(run, name=declared.name, task_run_name=declared.run_name, retries=policy.retries,
                retry_delay_seconds=policy.delays() or 0, tags=list(policy.tags),
                retry_condition_fn=retry_condition(policy.retry_if) if policy.retry_if is not None else None,
                timeout_seconds=policy.timeout_seconds,
                # Steps read files that change under them and ask models that must be asked again:
                # a result cached by its inputs would be stale, so none is.
                cache_policy=NONE)
