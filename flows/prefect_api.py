"""Is the Prefect API that PREFECT_API_URL names there? Asked once before work is handed to it.

Prefect itself only finds out inside the flow call, and says so with a rich traceback (`RuntimeError:
Failed to reach API`) after the command's real work is done — the capture after an approved run was lost
that way. So every surface asks first: a run falls back to the inline runner and says so in one line
(flows/runner.py, flows/post_run.py), serving refuses in one line (deployments/preflight.py). Prefect is
imported here only when an API is configured, which is when the caller is about to import it anyway.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr
from typing import Any

from agentuse.core.errors import AgentuseError

API_URL = "PREFECT_API_URL"
STARTUP_TIMEOUT = "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"
# Prefect tells that its temporary server did not come up in time only by this RuntimeError's text
# (prefect/server/api/server.py, SubprocessASGIServer.start).
_NO_TEMPORARY_SERVER = "Timed out while attempting to connect to ephemeral Prefect API server"


class PrefectUnavailable(AgentuseError):
    """A flow run was asked for, and Prefect cannot give one here: its API does not answer, its temporary
    server did not start, or its settings do not load."""


def settings_problem() -> str | None:
    """Import Prefect for a flow run; None when it loads, else why not in a few words. Prefect validates its
    settings on import, and one that does not (a PREFECT_ variable holding a word where a number belongs)
    raised pydantic's ValidationError through the command as a traceback, after printing the error itself
    as "Failed to initialize plugins". Named here in a few words instead, without its value (it may be a
    key). What the import prints otherwise is passed on."""
    from pydantic import ValidationError

    printed = io.StringIO()
    try:
        with redirect_stderr(printed):
            import prefect.main  # noqa: F401 - where Prefect reads its settings
    except ValidationError as error:
        first = error.errors()[0]
        given = str(first.get("input"))
        named = [name for name, value in os.environ.items() if name.startswith("PREFECT_") and value == given]
        where = named[0] if named else f"{error.title}.{'.'.join(map(str, first['loc']))}"
        return f"Prefect's settings do not load: {where} is not valid ({first['msg']})"
    sys.stderr.write(printed.getvalue())
    return None


@contextmanager
def temporary_server() -> Iterator[None]:
    """A flow run on the temporary server Prefect starts when no API is configured: one that does not come
    up in time is one line naming the setting that waits for it, not Prefect's RuntimeError traceback.
    Prefect says the same whether the server was slow or failed: one that fails exits with uvicorn's code 3,
    which Prefect takes for a busy port and restarts until the timeout. Its own output (the child's, on
    this terminal) then says why, and waiting longer would not help: the line names both."""
    try:
        yield
    except RuntimeError as error:
        if not str(error).startswith(_NO_TEMPORARY_SERVER):
            raise
        from prefect.server.api.server import SubprocessASGIServer
        from prefect.settings import PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS  # loaded: a flow ran

        # Prefect leaves its last attempt running (stopped at exit): stopped and waited for here, so nothing
        # it prints lands after the line below, which must be the last the reader sees.
        SubprocessASGIServer().stop()
        raise PrefectUnavailable(
            f"the temporary Prefect server did not start within {STARTUP_TIMEOUT} "
            f"({PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS.value()} s): fix what its own output above "
            f"names, if any, else raise the setting; or start a server (prefect server start) and set "
            f"{API_URL}") from None


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
    """None when the API answers its health check; otherwise why not, in a few words, naming the URL (or
    the Prefect setting that keeps Prefect from loading at all)."""
    if (problem := settings_problem()) is not None:
        return problem
    url = url or configured_url()
    try:
        with client(url) as prefect_client:
            problem = prefect_client.api_healthcheck()
    except Exception as error:  # noqa: BLE001 - a client that cannot even start is an API that does not answer
        problem = error
    return None if problem is None else did_not_answer(url, problem)


def did_not_answer(url: str, problem: BaseException) -> str:
    return f"the Prefect API at {url} did not answer ({type(problem).__name__})"
