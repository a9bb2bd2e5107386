"""One composition, two ways to run it (DESIGN.md).

A pipeline is a plain function declared with `@pipeline` (its name, how its runs are named, its
completion hooks); its steps are tasks/step.py declarations. `run` is the one entry: it chooses the
runner once — a real Prefect flow run when an API is configured or `--prefect` asks for one (the `@flow`
and `@task` objects are built then, from the same declarations), inline otherwise, which imports no
prefect at all. Inside, flows call their steps through `call` and `fan_out`: Prefect's task submission
under a flow run (retries, concurrency limits, the dashboard), plain calls in a thread pool otherwise, with
the same declared retry policy. "Am I under Prefect?" is `orchestrated()`, decided here only.

Flow parameters are JSON values only (paths, ids, flags, a date, a seed). What is not — the helper a test
scripts, a progress callback, the offline notice's printer — is handed to `run` and reaches the flow
through context variables (tasks/helpers.py, `progress` here), never as a parameter.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import os
import sys
import threading
import typing
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Literal

from agentuse.core.helper.deadline import DeadlineError
from agentuse.core.helper.protocol import HelperError
from agentuse.core.failure import Failure
from agentuse.core.stop_signals import stop_like_ctrl_c
from agentuse.flows import prefect_api
from agentuse.flows.prefect_api import PrefectUnavailable
from agentuse.tasks import helpers
from agentuse.tasks.retry import noted, retry_inline
from agentuse.tasks.step import Step

INLINE_WORKERS = 8

# "raise": the first error (in input order) is raised once every item has finished.
# "collect": a model fault that outlived its retries (`HelperError`) becomes that item's `Failure`, so one
# failed call fails only its own item; any other error is still raised once every item has finished.
OnError = Literal["raise", "collect"]


def orchestrated() -> bool:
    """Inside a Prefect flow run. Prefect not imported at all means certainly not (the inline runner never
    imports it), so the check itself costs the inline path nothing."""
    context = sys.modules.get("prefect.context")
    return context is not None and context.FlowRunContext.get() is not None


def prefect_requested(force: bool = False) -> bool:
    """Real flow runs when a Prefect API is configured (or `--prefect` forces a temporary server)."""
    return force or bool(prefect_api.configured_url())


RUN_TAGS = ("agentuse",)  # every flow run a surface starts; deployments tag theirs the same way

# Where the built Prefect flows live as module attributes, named for their pipelines (`capture`, `tidy`,
# `project_tidy`, ...): Prefect loads a deployment's flow from there by import.
FLOWS_MODULE = "agentuse.deployments.flows"


@dataclass(eq=False)
class Pipeline:
    """A flow declared as data: the body, its name, how its runs are named, its completion hooks, and the
    parameter naming its agent file (the helper of its model steps is resolved from it)."""

    fn: Callable[..., Any]
    name: str
    run_name: str | Callable[[], str]
    agent_param: str | None  # None: a pipeline over many agents (each of its subflows opens its own scope)
    on_completion: tuple[Callable[..., Any], ...] = ()
    task_runner: Callable[[], Any] | None = None
    _flow: Any = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def body(self, *args: Any, **kwargs: Any) -> Any:
        """One run of the flow as a plain call, with its agent's helper scope open."""
        if self.agent_param is None:
            return self.fn(*args, **kwargs)
        bound = _bind(self.fn, args, kwargs)
        with helpers.scope(str(bound.get(self.agent_param, ""))):
            return self.fn(*args, **kwargs)

    def prefect_flow(self) -> Any:
        """The Prefect flow, built on first use from the declaration. It is importable by name from
        FLOWS_MODULE, which is where a served or worker-run flow run loads it (a module-path entrypoint)."""
        with self._lock:
            if self._flow is None:
                from prefect import flow, tags

                def body(*args: Any, **kwargs: Any) -> Any:
                    # Tagged inside the run, not only by whoever starts it: a deployment's run (served, or on
                    # a worker) is started with no tags around it, and its task runs and subflows then carried
                    # none — no `agentuse` to filter the dashboard by. The run itself has the deployment's.
                    with tags(*RUN_TAGS, self.name):
                        return self.body(*args, **kwargs)

                functools.update_wrapper(body, self.fn)  # the flow's parameters are the declaration's own,
                # with their types resolved where they were written: Prefect builds its parameter model from
                # them, and string annotations would otherwise be looked up in FLOWS_MODULE.
                del body.__wrapped__
                body.__signature__ = inspect.signature(self.fn, eval_str=True)  # type: ignore[attr-defined]
                body.__annotations__ = typing.get_type_hints(self.fn)
                body.__module__ = FLOWS_MODULE
                body.__name__ = body.__qualname__ = self.name.replace("-", "_")
                from agentuse.flows.crashed import release

                self._flow = flow(body, name=self.name, flow_run_name=self.run_name, log_prints=False,
                                  on_completion=list(self.on_completion), on_crashed=[release],
                                  task_runner=self.task_runner() if self.task_runner else None)
            return self._flow


def _bind(fn: Callable[..., Any], args: tuple, kwargs: dict) -> dict[str, Any]:
    return dict(inspect.signature(fn).bind_partial(*args, **kwargs).arguments)


def pipeline(name: str, run_name: str | Callable[[], str], *, agent: str | None,
             on_completion: Sequence[Callable[..., Any]] = (), task_runner: Callable[[], Any] | None = None):
    def declare(fn: Callable[..., Any]) -> Pipeline:
        return Pipeline(fn=fn, name=name, run_name=run_name, agent_param=agent,
                        on_completion=tuple(on_completion), task_runner=task_runner)

    return declare


# --- progress: what a long pipeline reports as it goes, to whoever started it -------------------------

_PROGRESS: contextvars.ContextVar[Callable[[Any], None] | None] = contextvars.ContextVar(
    "agentuse_progress", default=None)


def progress(event: Any) -> None:
    """Tell the caller of the entry point (the CLI's lines, the web page's counter), if it listens."""
    listener = _PROGRESS.get()
    if listener is not None:
        listener(event)


@contextmanager
def _listening(listener: Callable[[Any], None] | None) -> Iterator[None]:
    token = _PROGRESS.set(listener)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def run(declared: Pipeline, *, force_prefect: bool = False, inline: bool = False, helper: Any = None,
        on_progress: Callable[[Any], None] | None = None, announce: Callable[[str], None] | None = None,
        **params: Any) -> Any:
    """The one way a surface runs a pipeline: `params` are the flow's JSON parameters; `helper` replaces
    the agent's helper (tests), `on_progress` hears `progress(...)`, `announce` prints the offline notice.
    `inline` keeps it off Prefect even with an API configured (a capture the API would not run)."""
    with helpers.given(helper, announce), _listening(on_progress):
        if not inline and prefect_requested(force_prefect):
            temporary = not prefect_api.configured_url()
            if temporary:
                quiet_temporary_server()
                # Prefect stops its server from an atexit hook, which a default SIGTERM/SIGHUP never reaches.
                stop_like_ctrl_c()
            if (problem := prefect_api.settings_problem()) is not None:
                refused = remedy = "fix or unset it"
            elif not temporary and (problem := prefect_api.unanswered()) is not None:
                remedy = f"start it, or unset {prefect_api.API_URL}"
                refused = f"start it (prefect server start) or unset {prefect_api.API_URL} to run against a " \
                          "temporary server"
            if problem is not None:
                if force_prefect:
                    raise PrefectUnavailable(f"{problem}: {refused}")
                # The work is the user's, the flow run only a view of it: do it here, and say why.
                (announce or helpers.announcer())(f"Ran here, not as a Prefect flow run: {problem} ({remedy}).")
                return declared.body(**params)
            from prefect import tags

            with tags(*RUN_TAGS, declared.name), prefect_api.temporary_server() if temporary else nullcontext():
                return declared.prefect_flow()(**params)
        return declared.body(**params)


# The temporary server inherits this process's environment (prefect/server/api/server.py).
ANALYTICS = "PREFECT_SERVER_ANALYTICS_ENABLED"


def quiet_temporary_server() -> None:
    """The server Prefect starts for one `--prefect` command lives for that command: it has no business
    reporting usage to prefect.io, and offline its attempts printed ERROR lines (at times a database-locked
    traceback) under a command that had worked. Only the default changes: an explicit setting is kept."""
    os.environ.setdefault(ANALYTICS, "false")


def as_failure(error: HelperError, operation: str = "") -> Failure:
    """The step's failure, as the core reads it: could not be vetted/planned/written, keep what was there."""
    spent = "" if isinstance(error, DeadlineError) else " (retries exhausted)"  # it says why already
    return noted(Failure(operation=error.operation or operation or "model", message=f"{error}{spent}"))


def call(task: Step, *args: Any, on_error: OnError = "raise", **kwargs: Any) -> Any:
    """Run one step: a task run under orchestration, a plain call under its declared policy otherwise.
    `on_error="collect"` returns a `Failure` instead of raising a `HelperError`."""
    try:
        if orchestrated():
            return task.prefect_task()(*args, **kwargs)
        return _inline_with_retries(task, lambda: task.run(*args, **kwargs))
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
    elif getattr(task, "model", False) and helpers.answers_in_process():
        # The offline evaluator computes its answers on this process's CPU: threads would only take turns
        # holding the interpreter, so its calls run one after another here (each in a copy of the context).
        outcomes = [contextvars.copy_context().run(settle, item, lambda item=item: call(task, item, **kwargs))
                    for item in items]
    else:
        from concurrent.futures import ThreadPoolExecutor  # ~2.5 ms, paid only by a pipeline that fans out

        workers = min(bound or INLINE_WORKERS, len(items))
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"agentuse-{task.name}")
        try:
            # Each call in a copy of this context: the flow's helper scope and progress listener follow it.
            pending = [pool.submit(contextvars.copy_context().run, settle, item,
                                   lambda item=item: call(task, item, **kwargs)) for item in items]
            pool.shutdown(wait=True)
        except BaseException:
            # Ctrl-C, SIGTERM (core/stop_signals): the calls still queued are never made (the pool's workers
            # would otherwise ask the model about each before the process could exit); those already out
            # finish as the interpreter leaves.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        outcomes = [future.result() for future in pending]  # all finished: the pool waited
    raised = next((o.error for o in outcomes if isinstance(o, _Raised)), None)
    if raised is not None:
        raise raised
    return outcomes


def _submitted(task: Step, items: Sequence[Any], bound: int | None, settle: Callable[[Any, Any], Any],
               kwargs: dict[str, Any]) -> list[Any]:
    """Prefect submission, at most `bound` in flight; each future is resolved as it finishes."""
    from prefect.futures import as_completed

    submit = task.prefect_task().submit
    outcomes: list[Any] = [None] * len(items)
    running: dict[Any, int] = {}
    queued = iter(range(len(items)))
    for index in queued:
        running[submit(items[index], **kwargs)] = index
        if bound is not None and len(running) >= bound:
            break
    while running:
        future = next(as_completed(list(running)))
        index = running.pop(future)
        outcomes[index] = settle(items[index], future.result)
        following = next(queued, None)
        if following is not None:
            running[submit(items[following], **kwargs)] = following
    return outcomes


def _inline_with_retries(task: Step, attempt: Callable[[], Any]) -> Any:
    policy = task.policy
    delays = policy.delays()
    if not delays or policy.retry_if is None:
        return attempt()
    return retry_inline(attempt, delays=delays, retry_if=policy.retry_if)
