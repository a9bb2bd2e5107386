"""Retry policy shared by every task that calls a model: transient faults only, exponential backoff; and
the two task decorators every step is declared with.

Prefect is imported inside the decorators: this module is also read for MODEL_TAG by deployment preflight,
which must stay light."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

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


def transient_only(task, task_run, state) -> bool:
    """Prefect `retry_condition_fn`: retry overloaded/rate-limited/timeouts, never a bad answer."""
    return is_transient(getattr(state, "data", None))


def model_task(name: str, run_name: str | None = None) -> Any:
    """A step that calls a model: transient-only retries with backoff, the model concurrency tag, and no
    result caching (a helper is not an input worth hashing, and a re-run must ask the model again).
    `run_name` defaults to `<name>/{item.label}`, for steps mapped over labelled items."""
    from prefect import task
    from prefect.cache_policies import NONE

    return task(name=name, task_run_name=run_name or f"{name}/{{item.label}}", retries=MODEL_RETRIES,
                retry_delay_seconds=backoff_delays(), retry_condition_fn=transient_only, tags=[MODEL_TAG],
                cache_policy=NONE)


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
