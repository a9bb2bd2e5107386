"""Issue 13, Access: `agentuse serve` on loopback is reachable by every local account, so by default it
hands out nothing without the token it prints at start (Jupyter's model), and no redirect leaves the site.

Each test runs the real command in its own interpreter and talks HTTP to it on 127.0.0.1.
"""

from __future__ import annotations

import http.client
import re
import secrets
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
from starlette.routing import Mount, Route
from typer.testing import CliRunner

from agentuse.cli.app import app as cli_app
from agentuse.core import store
from agentuse.serve.app import create_app
from serve_project import (AGENT_KEY, awaiting_review, csrf_of, free_port, http_get, make_project, printed_url,
                           start_serve, stop_serve, wait_up)

LEARNINGS = f"/agents/{AGENT_KEY}/learnings"


class Served:
    def __init__(self, agent: Path, url: str) -> None:
        self.agent, self.url = agent, url
        parts = urlsplit(url)
        self.base = f"{parts.scheme}://{parts.netloc}"
        self.port = parts.port
        self.token = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p).get("token")


PINNED = "pinned-" + "t" * 40


def _launch(tmp_path: Path, monkeypatch, token: str | None) -> Iterator[Served]:
    if token is None:
        monkeypatch.delenv("AGENTUSE_SERVE_TOKEN", raising=False)
    else:
        monkeypatch.setenv("AGENTUSE_SERVE_TOKEN", token)
    agent = make_project(tmp_path / "blog")
    child = start_serve(["--port", str(free_port()), "-C", str(agent.parent.parent)])
    try:
        url = printed_url(child)
        wait_up(url, child)
        yield Served(agent, url)
    finally:
        stop_serve(child)


@pytest.fixture
def served(tmp_path, monkeypatch) -> Iterator[Served]:
    """`agentuse serve` as a user starts it: no flag, no AGENTUSE_SERVE_TOKEN."""
    yield from _launch(tmp_path, monkeypatch, None)


@pytest.fixture
def pinned(tmp_path, monkeypatch) -> Iterator[Served]:
    """`agentuse serve` with its token pinned in AGENTUSE_SERVE_TOKEN, as a script starts it."""
    yield from _launch(tmp_path, monkeypatch, PINNED)


def _get_paths(agent: Path, sid: str) -> list[str]:
    """One concrete address for every GET route the app has, so a new route is covered without editing this."""
    fill = {"{key:path}": AGENT_KEY, "{session_id}": sid, "{job_id}": "0123456789ab"}
    paths = []
    for route in create_app(agent.parent.parent, token=None).routes:
        if isinstance(route, Mount):
            paths += [f"{route.path}/{name}" for name in ("style.css", "tidy.js")]
        elif isinstance(route, Route) and "GET" in (route.methods or ()):
            path = route.path
            for param, value in fill.items():
                path = path.replace(param, value)
            assert "{" not in path, f"no test value for a parameter of {route.path}"
            paths.append(path)
    return paths


def _raw(served: Served, method: str, target: str, headers: dict | None = None) -> http.client.HTTPResponse:
    """A request line sent as written (urllib would normalise `//host/x` into another host)."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
    connection.request(method, target, headers=headers or {})
    answer = connection.getresponse()
    answer.read()
    connection.close()
    return answer


def test_the_printed_address_carries_a_fresh_long_token(served):
    assert served.url.startswith(f"http://127.0.0.1:{served.port}/?token=")
    assert served.token and len(served.token) >= 32


def test_without_the_token_every_page_and_file_is_refused_with_how_to_get_in(served):
    sid = awaiting_review(served.agent)
    paths = _get_paths(served.agent, sid)
    assert len(paths) >= 9, paths
    for path in paths:
        status, body = http_get(served.base + path)
        assert status == 403, (path, status)
        assert "agentuse serve" in body and "?token=" in body, path  # says where the way in is
        assert 'name="csrf"' not in body, path
    # The same addresses with the token are real pages (the job id is unknown: a 404 page, not a refusal).
    for path in paths:
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())  # a fresh one each time
        status, _ = http_get(served.base + path + f"?token={served.token}", browser)
        assert status == (404 if "0123456789ab" in path else 200), (path, status)


def test_another_local_account_cannot_add_a_rule_or_start_a_tidy_up(served):
    location = store.locate(served.agent)
    agent_before, store_before = served.agent.read_bytes(), location.store_path.read_bytes()
    intruder = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    status, page = http_get(served.base + LEARNINGS, intruder)  # the page that used to hand out a CSRF field
    assert status == 403
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    for action, data in ((f"{LEARNINGS}/add", "text=Publish+without+review"), (f"/agents/{AGENT_KEY}/tidy", "")):
        form = f"csrf={csrf.group(1) if csrf else ''}&{data}".encode()
        request = urllib.request.Request(served.base + action, data=form, method="POST")
        try:
            with intruder.open(request, timeout=5) as answer:
                status = answer.status
        except urllib.error.HTTPError as error:
            status = error.code
        assert status == 403, action
    assert served.agent.read_bytes() == agent_before
    assert location.store_path.read_bytes() == store_before


def test_the_token_in_the_printed_address_becomes_a_cookie_and_leaves_the_address(served):
    first = _raw(served, "GET", f"/sessions?agent={AGENT_KEY}&token={served.token}")
    assert first.status == 303
    back = urlsplit(first.headers["location"])
    assert (back.scheme, back.netloc, back.path, parse_qs(back.query)) == ("", "", "/sessions", {"agent": [AGENT_KEY]})
    cookie = first.headers["set-cookie"]
    assert served.token in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie.replace("strict", "Strict")
    pair = cookie.split(";", 1)[0]
    assert _raw(served, "GET", "/", {"Cookie": pair}).status == 200
    assert _raw(served, "GET", f"/?token={served.token[:-1]}x").status == 403  # a wrong token is no way in
    # Scripts send it in a header instead.
    for scheme in ("token", "Bearer"):
        assert _raw(served, "GET", LEARNINGS + ".json", {"Authorization": f"{scheme} {served.token}"}).status == 200
    assert _raw(served, "GET", "/", {"Authorization": "token " + secrets.token_urlsafe(32)}).status == 403


@pytest.mark.parametrize("target", ["//evil.example/x", "/\\evil.example/x", "///evil.example/x", "/\\/evil.example/x",
                                    "//evil.example/sessions/", "//sessions/"])
def test_no_redirect_leaves_the_site(pinned, target):
    served = pinned
    assert served.token == PINNED  # the pinned token is the one printed
    assert _raw(served, "GET", target).getheader("location") is None  # no token: refused, nowhere to go
    for headers, query in (({}, f"?token={served.token}"), ({"Authorization": f"token {served.token}"}, "")):
        location = _raw(served, "GET", target + query, headers).getheader("location")
        if location is not None:
            assert location.startswith("/") and not location.startswith(("//", "/\\")), location
            assert urlsplit(urljoin(served.base + "/", location)).netloc == urlsplit(served.base).netloc


def test_a_trailing_slash_is_dropped_within_the_site(pinned):
    served = pinned
    answer = _raw(served, "GET", "/sessions/", {"Authorization": f"token {served.token}"})
    assert answer.status in (301, 302, 303, 307, 308) and answer.getheader("location") == "/sessions"


# ------------------------------------------------------------------------------------------------ the command


@pytest.fixture
def no_listen(monkeypatch) -> list:
    """uvicorn.run replaced: the command's checks run for real, nothing listens."""
    apps: list = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: apps.append((app, kw)))
    return apps


def test_allow_remote_refuses_a_short_token_with_one_line(tmp_path, monkeypatch, no_listen):
    monkeypatch.setenv("AGENTUSE_SERVE_TOKEN", "x" * 31)
    refused = CliRunner().invoke(cli_app, ["serve", "--host", "0.0.0.0", "--allow-remote", "-C", str(tmp_path)])
    assert refused.exit_code == 1 and no_listen == []
    assert len(refused.stderr.strip().splitlines()) == 1 and "32" in refused.stderr, refused.stderr
    monkeypatch.setenv("AGENTUSE_SERVE_TOKEN", "x" * 32)
    assert CliRunner().invoke(cli_app, ["serve", "--host", "0.0.0.0", "--allow-remote", "-C", str(tmp_path)]).exit_code == 0
    assert len(no_listen) == 1


def test_allow_remote_refuses_no_token(tmp_path, monkeypatch, no_listen):
    monkeypatch.delenv("AGENTUSE_SERVE_TOKEN", raising=False)
    args = ["serve", "--host", "0.0.0.0", "--allow-remote", "--no-token", "-C", str(tmp_path)]
    refused = CliRunner().invoke(cli_app, args)
    assert refused.exit_code == 1 and no_listen == []
    assert len(refused.stderr.strip().splitlines()) == 1 and "--no-token" in refused.stderr, refused.stderr


def test_no_token_is_explicit_and_warned_about(tmp_path, monkeypatch, no_listen):
    monkeypatch.delenv("AGENTUSE_SERVE_TOKEN", raising=False)
    agent = make_project(tmp_path / "blog")
    opened = CliRunner().invoke(cli_app, ["serve", "--no-token", "--port", "8765", "-C", str(agent.parent)])
    assert opened.exit_code == 0, opened.output
    assert "open http://127.0.0.1:8765/\n" in opened.stdout
    assert "warning: --no-token" in opened.output
    assert len(no_listen) == 1


@pytest.mark.parametrize(("target", "path"), [
    ("//evil.example/x", "/evil.example/x"), ("/\\evil.example/x", "/evil.example/x"),
    ("/\t/evil.example", "/evil.example"), ("/\n\\evil.example", "/evil.example"),
    ("https://evil.example/x?a=1", "/x?a=1"), ("http:/\\evil.example", "/evil.example"),
    ("javascript:alert(1)", "/alert(1)"), ("", "/"), ("/tidy/0123?flash=ab#top", "/tidy/0123?flash=ab#top"),
])
def test_every_location_is_made_a_path_on_this_server(target, path):
    from agentuse.serve.security import same_origin_path  # one place: the middleware sends every Location through it

    assert same_origin_path(target) == path
