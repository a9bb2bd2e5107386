"""Fit and finish of `agentuse serve` seen through its ASGI app: a favicon, error pages written for the web,
and the stylesheet's promises (dark mode, visible focus, narrow-screen tables). The browser tests measure the
layout itself at 1280 and 390 px."""

from __future__ import annotations

import html

import pytest

from agentuse.serve.app import create_app
from serve_project import AGENT_KEY, SERVE_TOKEN, make_project, signed_in


@pytest.fixture
def client(tmp_path):
    agent = make_project(tmp_path / "blog")
    return signed_in(create_app(agent.parent.parent, token=SERVE_TOKEN))


def test_the_favicon_is_served_and_every_page_names_it(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.startswith("<svg")
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in client.get("/").text
    assert client.get("/static/favicon.svg").status_code == 200


@pytest.mark.parametrize("path, status, words", [
    ("/no/such/page", 404, "There is no page at this address"),
    (f"/agents/{AGENT_KEY}/undo", 405, "only takes a form sent from one of this server's pages"),
    ("/sessions/01NOSUCH", 404, "There is no session '01NOSUCH'"),
    ("/agents/nope.agentuse/learnings", 404, "no agent file 'nope.agentuse'"),
])
def test_error_pages_are_styled_pages_written_for_the_web(client, path, status, words):
    page = client.get(path)
    assert page.status_code == status
    assert '<link rel="stylesheet" href="/static/style.css">' in page.text and 'data-testid="problem"' in page.text
    assert words in html.unescape(page.text)
    assert "javascript:" not in page.text and "Not Found" not in page.text


def test_a_refused_action_is_a_400_page_with_the_cli_s_one_line(client):
    from serve_project import csrf_of

    token = csrf_of(client.get(f"/agents/{AGENT_KEY}/learnings").text)
    page = client.post(f"/agents/{AGENT_KEY}/learnings/zzzzzzzz/discard", data={"csrf": token})
    assert page.status_code == 400 and 'data-status="400"' in page.text and "That did not work" in page.text
    assert "no learning with id" in page.text


def test_the_stylesheet_follows_the_system_theme_shows_focus_and_stacks_tables_on_narrow_screens(client):
    css = client.get("/static/style.css").text
    assert "@media (prefers-color-scheme: dark)" in css and "color-scheme: light dark" in css
    assert ":focus-visible" in css and "outline:" in css.split(":focus-visible", 1)[1].split("}", 1)[0]
    assert "table.stack" in css
    assert 'class="sessions stack"' in client.get("/sessions").text or "No sessions recorded yet" in client.get("/sessions").text
