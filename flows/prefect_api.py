"""Is the Prefect API that PREFECT_API_URL names there? Asked once before work is handed to it.

Prefect itself only finds out inside the flow call, and says so with a rich traceback (`RuntimeError:
Failed to reach API`) after the command's real work is done — the capture after an approved run was lost
that way. So every surface asks first: a run falls back to the inline runner and says so in one line
(flows/runner.py, flows/post_run.py), serving refuses in one line (deployments/preflight.py). Prefect is
imported here only when an API is configured, which is when the caller is about to import it anyway.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

API_URL = "PREFECT_API_URL"


def configured_url() -> str:
    """The API named in the environment ("" for none): what decides, without importing prefect, whether a
    command runs its pipeline as a flow run (flows/runner.py `prefect_requested`)."""
    return os.environ.get(API_URL, "").strip()


@contextmanager
def client(url: str | None = None) -> Iterator[Any]:
    """A sync Prefect client for `url` (default: the environment's, as it is now). Prefect reads its settings
    once, at import: a process that set the variable after that would otherwise get a client for the cached
    settings, which named no API — a temporary server of its own."""
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings(updates={PREFECT_API_URL: url or configured_url()}):
        with get_client(sync_client=True) as prefect_client:
            yield prefect_client


def unanswered(url: str | None = None) -> str | None:
    """None when the API answers its health check; otherwise why not, in a few words, naming the URL."""
    url = url or configured_url()
    try:
        with client(url) as prefect_client:
            problem = prefect_client.api_healthcheck()
    except Exception as error:  # noqa: BLE001 - a client that cannot even start is an API that does not answer
        problem = error
    return None if problem is None else did_not_answer(url, problem)


def did_not_answer(url: str, problem: BaseException) -> str:
    return f"the Prefect API at {url} did not answer ({type(problem).__name__})"
