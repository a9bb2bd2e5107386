"""A real `prefect server start` on 127.0.0.1 for end-to-end tests: started on a free port with its own
PREFECT_HOME, waited for on /api/health, and always stopped (SIGINT first, so uvicorn's child exits too)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STARTUP_TIMEOUT_SECONDS = 180


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(
        PREFECT_HOME=str(home),
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_SERVER_UI_ENABLED="false",
        PREFECT_LOGGING_LEVEL="WARNING",
    )
    return env


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


@contextmanager
def prefect_server(home: Path) -> Iterator[str]:
    """Yield the API URL (`http://127.0.0.1:<port>/api`) of a server that lives for the block."""
    home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    prefect = Path(sys.executable).with_name("prefect")
    log = open(home / "server.log", "w")  # noqa: SIM115 - closed in finally
    process = subprocess.Popen(
        [str(prefect), "server", "start", "--host", "127.0.0.1", "--port", str(port), "--no-ui",
         "--analytics-off"],
        env=server_env(home), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while not _healthy(url):
            if process.poll() is not None:
                raise RuntimeError(f"prefect server exited early:\n{(home / 'server.log').read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"prefect server not healthy after {STARTUP_TIMEOUT_SECONDS}s")
            time.sleep(0.5)
        yield url
    finally:
        stop(process)
        log.close()


def stop(process: subprocess.Popen, *, grace: float = 20) -> None:
    """SIGINT the whole process group first (clean shutdown), then SIGTERM, then SIGKILL."""
    if process.poll() is not None:
        return
    for sig, wait in ((signal.SIGINT, grace), (signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    # The group may still hold children that ignored the signal; leave nothing behind.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
