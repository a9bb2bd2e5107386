"""`--prefect` with no API configured runs against a temporary server: when that server cannot come up,
or a Prefect setting in the environment does not load, the command says so in one line and exits 1
(never a rich traceback), and the files are untouched.

Both were tracebacks: Prefect reports a server that missed its start-up timeout only with a RuntimeError,
and a setting that does not validate with pydantic's ValidationError at `import prefect`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentuse.core import store

pytestmark = pytest.mark.prefect

AGENT = "---\nmodel: anthropic:claude-sonnet-5\nlearning: true\n---\n\n# Writer\n\nWrite short posts.\n"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    agent = project / "writer.agentuse"
    agent.write_text(AGENT)
    return agent


def _agentuse(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, **env}
    environ.pop("PREFECT_API_URL", None)
    return subprocess.run([sys.executable, "-c", "from agentuse.cli.app import main; main()", *args],
                          cwd=cwd, env=environ, capture_output=True, text=True, timeout=240)


def _one_error_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr and "╭" not in done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, done.stderr
    return errors[0]


def test_a_temporary_server_that_misses_its_start_up_timeout_is_one_line(tmp_path):
    agent = _project(tmp_path)
    done = _agentuse("learnings", "add", str(agent), "Keep posts under 300 words", "--prefect", cwd=agent.parent,
                     PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="1")
    line = _one_error_line(done)
    assert "temporary Prefect server" in line and "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS" in line
    assert not store.locate(agent).store_path.exists()  # the note was not half saved: nothing was written


def test_a_prefect_setting_that_does_not_load_is_named_in_one_line(tmp_path):
    agent = _project(tmp_path)
    done = _agentuse("learnings", "tidy", str(agent), "--prefect", cwd=agent.parent,
                     PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="soon")
    line = _one_error_line(done)
    assert "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS" in line and "soon" not in line


def test_serving_with_a_prefect_setting_that_does_not_load_is_one_line(tmp_path):
    agent = _project(tmp_path)
    done = _agentuse("deploy", "serve", "-C", str(agent.parent), cwd=agent.parent,
                     PREFECT_API_URL="http://127.0.0.1:9/api", PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="soon")
    assert "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS" in _one_error_line(done)
    assert "Failed to initialize plugins" not in done.stderr  # Prefect's own print of the same error


def test_a_command_with_an_api_configured_and_a_setting_that_does_not_load_does_its_work_here(tmp_path):
    agent = _project(tmp_path)
    environ = {**os.environ, "PREFECT_API_URL": "http://127.0.0.1:9/api",
               "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "soon"}
    done = subprocess.run([sys.executable, "-c", "from agentuse.cli.app import main; main()", "learnings", "add",
                           str(agent), "Keep posts under 300 words"], cwd=agent.parent, env=environ,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "Ran here, not as a Prefect flow run: Prefect's settings do not load: " \
           "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS is not valid" in done.stderr
    assert "Traceback" not in done.stderr and "Failed to initialize plugins" not in done.stderr
    assert "Keep posts under 300 words" in store.locate(agent).store_path.read_text()


def test_a_temporary_server_that_fails_on_start_up_is_not_told_to_wait_longer(tmp_path):
    """A temporary server that cannot open its database exits at once (uvicorn's exit code 3, which Prefect
    takes for a busy port and retries until the timeout): its own lines above say why, and the one line
    must send the reader there, not only to a longer timeout that fails the same way, later."""
    agent = _project(tmp_path)
    done = _agentuse("learnings", "add", str(agent), "Keep posts under 300 words", "--prefect", cwd=agent.parent,
                     PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="15",
                     PREFECT_SERVER_DATABASE_CONNECTION_URL=f"sqlite+aiosqlite:///{tmp_path}/no/such/dir/x.db")
    # The server's own log says why (its traceback, as uvicorn.error lines): this command adds one line.
    assert "unable to open database file" in done.stderr and "uvicorn.error" in done.stderr
    assert done.returncode == 1 and "╭" not in done.stderr
    assert "RuntimeError" not in done.stderr  # Prefect's timeout, which was this command's own traceback
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and done.stderr.splitlines()[-1] == errors[0], done.stderr[-2000:]
    line = errors[0]
    assert "(15 s)" in line and "its own output above" in line
    assert not store.locate(agent).store_path.exists()


def test_an_unset_start_up_timeout_is_named_by_the_value_prefect_waited(monkeypatch):
    """Unset, the line said 'within PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS (Prefect's default s)'."""
    from prefect.settings import PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS

    from agentuse.flows import prefect_api

    monkeypatch.delenv(prefect_api.STARTUP_TIMEOUT, raising=False)
    with pytest.raises(prefect_api.PrefectUnavailable) as raised, prefect_api.temporary_server():
        raise RuntimeError("Timed out while attempting to connect to ephemeral Prefect API server.")
    assert f"({PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS.value()} s)" in str(raised.value)
    assert "default s" not in str(raised.value)
