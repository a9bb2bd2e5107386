"""`agentuse serve`: loopback by default, a remote bind only with --allow-remote and a long token, and a real
server that answers and stops cleanly. (What the token keeps out: tests/reliability/test_serve_access.py.)"""

from __future__ import annotations

import os
import urllib.request

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.cli.serve import check_bind, is_loopback, launch_token
from agentuse.core.errors import AgentuseError
from serve_project import free_port, http_get, make_project, printed_url, start_serve, stop_serve, wait_up

LONG = "t" * 32


def test_loopback_hosts_need_nothing_else():
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert is_loopback(host)
        check_bind(host, allow_remote=False, token=None)
        check_bind(host, allow_remote=False, token="short")  # a pinned short token is the user's call locally
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")


def test_a_remote_bind_needs_the_flag_and_a_long_token():
    with pytest.raises(AgentuseError, match="--allow-remote"):
        check_bind("0.0.0.0", allow_remote=False, token=LONG)
    with pytest.raises(AgentuseError, match="--no-token"):
        check_bind("0.0.0.0", allow_remote=True, token=None)
    with pytest.raises(AgentuseError, match="at least 32 characters"):
        check_bind("0.0.0.0", allow_remote=True, token=LONG[:-1])
    check_bind("0.0.0.0", allow_remote=True, token=LONG)


def test_each_launch_has_its_own_token_unless_pinned_or_turned_off(monkeypatch):
    monkeypatch.delenv("AGENTUSE_SERVE_TOKEN", raising=False)
    first, second = launch_token(no_token=False), launch_token(no_token=False)
    assert first != second and len(first) >= 32 and len(second) >= 32
    monkeypatch.setenv("AGENTUSE_SERVE_TOKEN", " pinned ")
    assert launch_token(no_token=False) == "pinned"
    assert launch_token(no_token=True) is None


def test_the_command_refuses_before_listening(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENTUSE_SERVE_TOKEN", raising=False)
    refused = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "-C", str(tmp_path)])
    assert refused.exit_code == 1 and "refusing to listen on 0.0.0.0" in refused.stderr
    no_token = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--allow-remote", "--no-token", "-C", str(tmp_path)])
    assert no_token.exit_code == 1 and "--allow-remote needs a token" in no_token.stderr


def test_agentuse_serve_answers_on_loopback_and_stops(tmp_path, monkeypatch):
    monkeypatch.delenv("AGENTUSE_SERVE_TOKEN", raising=False)
    agent = make_project(tmp_path / "blog")
    port = free_port()
    child = start_serve(["--port", str(port), "-C", str(agent.parent)])
    try:
        url = printed_url(child)
        assert url.startswith(f"http://127.0.0.1:{port}/?token=")
        wait_up(url, child)
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())  # keeps cookies
        status, page = http_get(url, browser)
        assert status == 200 and "agents/blog-writer.agentuse" in page  # -C inside the repo: its git root
    finally:
        stop_serve(child)


def test_a_pinned_token_is_the_one_printed_and_nothing_works_without(tmp_path):
    agent = make_project(tmp_path / "blog")
    port = free_port()
    child = start_serve(["--port", str(port), "-C", str(agent.parent.parent)],
                        {**os.environ, "AGENTUSE_SERVE_TOKEN": "a-long-random-token"})
    try:
        assert printed_url(child) == f"http://127.0.0.1:{port}/?token=a-long-random-token"
        wait_up(f"http://127.0.0.1:{port}/", child)
        assert http_get(f"http://127.0.0.1:{port}/")[0] == 403
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())  # keeps cookies
        assert http_get(f"http://127.0.0.1:{port}/?token=a-long-random-token", browser)[0] == 200  # cookie, redirect
        assert http_get(f"http://127.0.0.1:{port}/sessions", browser)[0] == 200
    finally:
        stop_serve(child)


def test_no_token_serves_openly_after_a_warning(tmp_path):
    agent = make_project(tmp_path / "blog")
    port = free_port()
    child = start_serve(["--port", str(port), "--no-token", "-C", str(agent.parent)])
    try:
        assert printed_url(child) == f"http://127.0.0.1:{port}/"
        wait_up(f"http://127.0.0.1:{port}/", child)
        assert http_get(f"http://127.0.0.1:{port}/sessions")[0] == 200
    finally:
        stop_serve(child)


def test_any_loopback_address_it_accepts_answers_at_the_address_it_prints(tmp_path):
    """127.0.0.0/8 is loopback, so `--host 127.0.0.2` is allowed without --allow-remote; the address printed
    must then answer, not refuse every request as a rebinding ('Invalid host header')."""
    agent = make_project(tmp_path / "blog")
    port = free_port()
    child = start_serve(["--host", "127.0.0.2", "--port", str(port), "-C", str(agent.parent)],
                        {**os.environ, "AGENTUSE_SERVE_TOKEN": "a-long-random-token"})
    try:
        url = printed_url(child)
        assert url == f"http://127.0.0.2:{port}/?token=a-long-random-token"
        wait_up(url, child)
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        status, page = http_get(url, browser)
        assert status == 200 and "agents/blog-writer.agentuse" in page
        request = urllib.request.Request(f"http://127.0.0.2:{port}/", headers={"Host": f"evil.example:{port}"})
        assert http_get(request, browser)[0] == 400  # still refused under another name
    finally:
        stop_serve(child)
