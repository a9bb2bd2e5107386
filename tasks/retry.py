"""Retry policy shared by every task that calls a model: transient faults only, exponential backoff."""

from __future__ import annotations

import os

from agentuse.core.helper.protocol import HelperError

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
