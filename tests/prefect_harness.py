"""A temporary Prefect server for tests that run real flow runs (a plain module: tests import it).

`prefect_test_harness` with DESIGN.md's harness settings: PREFECT_API_URL unset before it starts,
PREFECT_HOME in a temp dir, analytics off, a generous startup timeout, flow heartbeats off in-process
(they cannot be turned off from the environment; with them on, every flow run waits ~1 s for the thread
to join). The harness starts its server as a subprocess and stops it on exit; `harness()` also checks
that the process is gone, so no server outlives the test session.

The harness points the server at a temporary file database (its own choice, made after our settings);
the in-memory URL is set too so that anything started outside the harness uses memory, as DESIGN.md asks.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STARTUP_TIMEOUT_SECONDS = 180


@contextmanager
def harness(home: Path) -> Iterator[str]:
    """Yield the API URL of a temporary server that lives for the block."""
    os.environ.pop("PREFECT_API_URL", None)  # an empty value breaks event emission: unset, not blank
    home.mkdir(parents=True, exist_ok=True)
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.settings import (
        PREFECT_API_URL,
        PREFECT_HOME,
        PREFECT_SERVER_ANALYTICS_ENABLED,
        PREFECT_SERVER_DATABASE_CONNECTION_URL,
        PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS,
        temporary_settings,
    )
    from prefect.testing.utilities import prefect_test_harness

    settings = {
        PREFECT_HOME: str(home),
        PREFECT_SERVER_DATABASE_CONNECTION_URL: "sqlite+aiosqlite:///:memory:",
        PREFECT_SERVER_ANALYTICS_ENABLED: False,
        PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS: STARTUP_TIMEOUT_SECONDS,
        "flows.heartbeat_frequency": None,
        "logging.to_api.enabled": False,  # logs are not what these tests read; fewer writes to the server
    }
    server = None
    with temporary_settings(updates=settings):
        try:
            with prefect_test_harness(server_startup_timeout=STARTUP_TIMEOUT_SECONDS):
                server = SubprocessASGIServer._instances.get(None)
                yield PREFECT_API_URL.value()
        finally:
            process = getattr(server, "server_process", None)
            if process is not None and process.poll() is None:  # the harness did not stop it: we do
                process.terminate()
                process.wait(timeout=30)
    if server is not None and getattr(server, "server_process", None) is not None:
        assert server.server_process.poll() is not None, "the temporary Prefect server outlived its harness"


def flow_run_tasks(flow_run_name: str, *, expect: int, seconds: float = 60) -> dict[str, list]:
    """Task runs of the named flow run, grouped by task run name. Task run states reach the server as
    events, written asynchronously: poll (bounded) until `expect` runs are there and all are final."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

    deadline = time.monotonic() + seconds
    with get_client(sync_client=True) as client:
        while True:
            flow_runs = client.read_flow_runs(flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[flow_run_name])))
            runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id={"any_": [r.id for r in flow_runs]})) \
                if flow_runs else []
            settled = len(runs) >= expect and all(r.state and r.state.is_final() for r in runs)
            if settled or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    assert len(flow_runs) == 1, f"expected one flow run named {flow_run_name}, found {len(flow_runs)}"
    grouped: dict[str, list] = {}
    for run in runs:
        grouped.setdefault(run.name, []).append(run)
    return grouped
