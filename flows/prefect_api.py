"""Is the Prefect API that PREFECT_API_URL names there? Asked once before work is handed to it.

Prefect itself only finds out inside the flow call, and says so with a rich traceback (`RuntimeError:
Failed to reach API`) after the command's real work is done — the capture after an approved run was lost
that way. So every surface asks first: a run falls back to the inline runner and says so in one line
(flows/runner.py, flows/post_run.py), serving refuses in one line (deployments/preflight.py). Prefect is
imported here only when an API is configured, which is when the caller is about to import it anyway.
"""

from __future__ import annotations

import os

API_URL = "PREFECT_API_URL"


def configured_url() -> str:
    """The API named in the environment ("" for none): what decides, without importing prefect, whether a
    command runs its pipeline as a flow run (flows/runner.py `prefect_requested`)."""
    return os.environ.get(API_URL, "").strip()


def unanswered(url: str | None = None) -> str | None:
    """None when the API answers its health check; otherwise why not, in a few words, naming the URL."""
    from prefect.client.orchestration import get_client

    url = url or configured_url()
    try:
        with get_client(sync_client=True) as client:
            problem = client.api_healthcheck()
    except Exception as error:  # noqa: BLE001 - a client that cannot even start is an API that does not answer
        problem = error
    return None if problem is None else did_not_answer(url, problem)


def did_not_answer(url: str, problem: BaseException) -> str:
    return f"the Prefect API at {url} did not answer ({type(problem).__name__})"
