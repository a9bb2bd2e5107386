"""What every answer of `agentuse serve` tells the browser about itself: never framed (a page on another
port of 127.0.0.1 is the same site, so the SameSite cookies go along and a frame of ours would be live
under a decoy), scripts and styles only from this server, no MIME sniffing, no Referer to the sites an
agent's output links to. Refusals (wrong host, no token, CSRF) carry the same headers as pages."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from agentuse.serve.app import create_app
from serve_project import AGENT_KEY, SERVE_TOKEN, make_project, signed_in

LEARNINGS = f"/agents/{AGENT_KEY}/learnings"


@pytest.fixture
def app(tmp_path):
    agent = make_project(tmp_path / "blog")
    return create_app(agent.parent.parent, token=SERVE_TOKEN)


def directives(policy: str) -> dict[str, str]:
    return {part.split()[0]: part.split(None, 1)[1] if " " in part.strip() else ""
            for part in (p.strip() for p in policy.split(";")) if part}


def assert_hardened(answer) -> None:
    headers = answer.headers
    assert headers.get("x-frame-options") == "DENY", answer.request.url
    assert headers.get("x-content-type-options") == "nosniff"
    assert headers.get("referrer-policy") == "no-referrer"
    assert headers.get("cross-origin-resource-policy") == "same-origin"
    assert headers.get("cross-origin-opener-policy") == "same-origin"
    policy = directives(headers.get("content-security-policy", ""))
    assert policy.get("frame-ancestors") == "'none'"
    assert policy.get("default-src") == "'none'"
    assert policy.get("script-src") == "'self'" and policy.get("style-src") == "'self'"
    assert policy.get("form-action") == "'self'" and policy.get("base-uri") == "'none'"


def test_every_page_json_file_and_refusal_says_never_frame_me_and_only_my_own_scripts(app):
    client = signed_in(app)
    for path in ("/", LEARNINGS, LEARNINGS + ".json", "/sessions", "/static/style.css", "/static/tidy.js",
                 "/favicon.ico", "/no/such/page"):
        assert_hardened(client.get(path))
    assert_hardened(client.post(f"/agents/{AGENT_KEY}/undo", data={"csrf": "0" * 64}))  # CSRF refusal
    assert_hardened(TestClient(app, base_url="http://127.0.0.1").get("/"))  # no token
    assert_hardened(TestClient(app, base_url="http://evil.example").get("/"))  # DNS rebinding refusal
    first = TestClient(app, base_url="http://127.0.0.1").get("/", params={"token": SERVE_TOKEN},
                                                             follow_redirects=False)
    assert first.status_code == 303
    assert_hardened(first)  # the token exchange too


def test_the_pages_need_nothing_the_policy_refuses(app):
    """No inline script, no inline style, no event attribute: the policy costs the pages nothing."""
    client = signed_in(app)
    import re

    for path in ("/", LEARNINGS, "/sessions"):
        page = client.get(path).text
        assert not re.search(r"<script(?![^>]*\bsrc=)", page), path
        assert not re.search(r"\sstyle=|<style", page), path
        assert not re.search(r"\son[a-z]+=", page), path
