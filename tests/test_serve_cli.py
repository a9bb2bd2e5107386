"""`agentuse serve`: loopback by default, a remote bind only with --allow-remote and a token, and a real
server that answers and stops cleanly."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.cli.serve import check_bind, is_loopback
from agentuse.core.errors import AgentuseError
from serve_project import make_project


def test_loopback_hosts_need_nothing_else():
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert is_loopback(host)
        check_bind(host, allow_remote=False, token=None)
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")


def test_a_remote_bind_needs_the_flag_and_the_token():
    with pytest.raises(AgentuseError, match="--allow-remote"):
        check_bind("0.0.0.0", allow_remote=False, token="t")
    with pytest.raises(AgentuseError, match="AGENTUSE_SERVE_TOKEN"):
        check_bind("0.0.0.0", allow_remote=True, token=None)
    check_bind("0.0.0.0", allow_remote=True, token="t")


def test_the_command_refuses_before_listening(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENTUSE_SERVE_TOKEN", raising=False)
    refused = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "-C", str(tmp_path)])
    assert refused.exit_code == 1 and "refusing to listen on 0.0.0.0" in refused.stderr
    no_token = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--allow-remote", "-C", str(tmp_path)])
    assert no_token.exit_code == 1 and "--allow-remote needs a token" in no_token.stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str, opener: urllib.request.OpenerDirector | None = None) -> tuple[int, str]:
    try:
        with (opener or urllib.request.build_opener()).open(url, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _serve(args: list[str], env: dict) -> subprocess.Popen:
    code = "import sys; from agentuse.cli.app import main; sys.argv = ['agentuse', *sys.argv[1:]]; main()"
    return subprocess.Popen([sys.executable, "-c", code, "serve", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_up(url: str, child: subprocess.Popen) -> None:
    for _ in range(300):
        if child.poll() is not None:
            raise AssertionError(child.communicate())
        try:
            _get(url)
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("agentuse serve did not start")


def _stop(child: subprocess.Popen) -> str:
    child.send_signal(signal.SIGINT)  # uvicorn's own clean shutdown
    out, _ = child.communicate(timeout=20)
    return out


def test_agentuse_serve_answers_on_loopback_and_stops(tmp_path):
    agent = make_project(tmp_path / "blog")
    port = _free_port()
    child = _serve(["--port", str(port), "-C", str(agent.parent)], dict(os.environ))
    try:
        _wait_up(f"http://127.0.0.1:{port}/", child)
        status, page = _get(f"http://127.0.0.1:{port}/")
        assert status == 200 and "agents/blog-writer.agentuse" in page  # -C inside the repo: its git root
    finally:
        out = _stop(child)
    assert f"open http://127.0.0.1:{port}/" in out


def test_with_a_token_the_printed_address_carries_it_and_nothing_works_without(tmp_path):
    agent = make_project(tmp_path / "blog")
    port = _free_port()
    env = {**os.environ, "AGENTUSE_SERVE_TOKEN": "a-long-random-token"}
    child = _serve(["--port", str(port), "-C", str(agent.parent.parent)], env)
    try:
        _wait_up(f"http://127.0.0.1:{port}/", child)
        assert _get(f"http://127.0.0.1:{port}/")[0] == 401
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())  # keeps cookies
        assert _get(f"http://127.0.0.1:{port}/?token=a-long-random-token", browser)[0] == 200  # cookie, redirect
        assert _get(f"http://127.0.0.1:{port}/sessions", browser)[0] == 200
    finally:
        out = _stop(child)
    assert f"open http://127.0.0.1:{port}/?token=a-long-random-token" in out
