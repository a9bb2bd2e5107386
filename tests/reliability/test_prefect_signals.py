"""A `--prefect` command stopped with SIGTERM or SIGHUP stops its temporary Prefect server (issue 13).

The default SIGTERM killed the command before Prefect's atexit hook could stop the server, leaving its
uvicorn child under PID 1, still listening. The command here is `learnings add --prefect` against a fake
Messages API that never answers, so it is certainly mid-flow when the signal arrives.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from capture_support import make_agent
from fakes import silent

pytestmark = pytest.mark.prefect

AGENTUSE = Path(sys.executable).with_name("agentuse")
STARTUP_SECONDS = 180  # a guard only: the temporary server takes 5-12 s to start here


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:  # the field after the state is the parent's pid
            found.append(int(entry.name))
    return found + [grandchild for child in found for grandchild in _children(child)]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _port_of(pid: int) -> int | None:
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    if b"uvicorn" not in b" ".join(args) or b"--port" not in args:
        return None
    return int(args[args.index(b"--port") + 1])


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_stops_the_temporary_server(tmp_path, fake_anthropic, sig):
    fake_anthropic.script(default=lambda request: silent(120))
    agent = make_agent(tmp_path / "proj")
    env = {**os.environ, **fake_anthropic.env(), "AGENTUSE_HELPER_TIMEOUT": "300",
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180",
           "PREFECT_SERVER_DATABASE_CONNECTION_URL": "sqlite+aiosqlite:///:memory:"}
    env.pop("PREFECT_API_URL", None)
    process = subprocess.Popen([str(AGENTUSE), "learnings", "add", str(agent), "Keep intros short.", "--prefect"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    descendants: list[int] = []
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not fake_anthropic.requests:  # the flow is running: its server is up and it waits on the model
            assert process.poll() is None, process.stdout.read().decode()
            assert time.monotonic() < deadline, "the command never reached the model"
            time.sleep(0.2)
        descendants = _children(process.pid)
        ports = [port for pid in descendants if (port := _port_of(pid)) is not None]
        assert len(ports) == 1 and _listening(ports[0]), (descendants, ports)

        process.send_signal(sig)
        process.wait(timeout=60)

        assert [pid for pid in descendants if _alive(pid)] == []
        assert not _listening(ports[0])
        assert process.returncode != 0  # stopped, not finished
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)  # the clean shutdown: Prefect stops its server on it
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for pid in descendants:  # anything orphaned by a failed assertion: by pid, only ours
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        process.stdout.close()


def test_the_temporary_server_sends_no_telemetry(tmp_path, fake_anthropic):
    """Prefect's server reports usage to prefect.io by default: a temporary server this command starts for
    itself must not (offline it printed `ERROR ... Failed to send telemetry`, at times a database-locked
    traceback, under a command that worked). An operator's own setting is theirs: only the default changes."""
    fake_anthropic.script(default=lambda request: silent(120))
    agent = make_agent(tmp_path / "proj")
    env = {**os.environ, **fake_anthropic.env(), "AGENTUSE_HELPER_TIMEOUT": "300",
           "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180"}
    for name in ("PREFECT_API_URL", "PREFECT_SERVER_ANALYTICS_ENABLED"):
        env.pop(name, None)
    process = subprocess.Popen([str(AGENTUSE), "learnings", "add", str(agent), "Keep intros short.", "--prefect"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not fake_anthropic.requests:
            assert process.poll() is None, process.stdout.read().decode()
            assert time.monotonic() < deadline, "the command never reached the model"
            time.sleep(0.2)
        [server] = [pid for pid in _children(process.pid) if _port_of(pid) is not None]
        environ = dict(item.split(b"=", 1) for item in Path(f"/proc/{server}/environ").read_bytes().split(b"\0")
                       if b"=" in item)
        assert environ.get(b"PREFECT_SERVER_ANALYTICS_ENABLED", b"").lower() == b"false", environ.get(b"PREFECT_SERVER_ANALYTICS_ENABLED")
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        output = process.stdout.read().decode()
        process.stdout.close()
    assert "telemetry" not in output, output
