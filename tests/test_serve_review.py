"""The session page as a review: the output rendered as markdown with nothing executable let through, the
review history from the log, each round's rules linked to the rule, and honest words about replayed runs
and failed revisions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentuse.runtime.approval import find_session
from agentuse.serve.app import create_app
from agentuse.serve.markdown import render_markdown
from serve_project import AGENT_KEY, SERVE_TOKEN, awaiting_review, csrf_of, make_project, recorded_replies, signed_in

LEARNINGS = f"/agents/{AGENT_KEY}/learnings"
HOSTILE = ("# Plan\n\n**bold** and a [source](https://example.org/study)\n\n<script>alert('x')</script>\n\n"
           "[click](javascript:alert(1)) <img src=x onerror=alert(1)> <a href=\"javascript:alert(2)\">raw</a>\n\n"
           "[data](data:text/html;base64,PHNjcmlwdD4=) <div onclick=\"alert(3)\">div</div>\n\n"
           "| tip | time |\n|---|---|\n| inbox | 2 min |\n")


@pytest.fixture
def agent(tmp_path) -> Path:
    return make_project(tmp_path / "blog")


@pytest.fixture
def client(agent):
    return signed_in(create_app(agent.parent.parent, token=SERVE_TOKEN))


def post(client, page: str, action: str, data: dict):
    return client.post(action, data={"csrf": csrf_of(client.get(page).text), **data}, follow_redirects=False)


def article(html: str) -> str:
    found = re.search(r'<article class="output markdown" data-testid="output">(.*?)</article>', html, re.S)
    assert found, "no rendered output on the page"
    return found.group(1)


def executable(html: str) -> list[str]:
    """Every way markup could run script: script/iframe/object tags, on* attributes, script URLs."""
    return (re.findall(r"<\s*(?:script|iframe|object|embed|img|svg|style)\b", html, re.I)
            + re.findall(r"<[^>]*\son\w+\s*=", html, re.I)
            + re.findall(r"<[a-z][^>]*(?:href|src)\s*=\s*[\"']?\s*(?:javascript|data|vbscript):", html, re.I))


def test_markdown_is_rendered_and_nothing_executable_passes():
    html = str(render_markdown(HOSTILE))
    assert "<h1>Plan</h1>" in html and "<strong>bold</strong>" in html and "<table>" in html
    assert 'href="https://example.org/study"' in html
    assert executable(html) == []
    assert "&lt;script&gt;" in html  # shown as the text it is


def test_the_session_page_renders_the_output_and_sanitizes_it(client, agent, tmp_path):
    sid = awaiting_review(agent, recorded_replies(tmp_path / "rec", HOSTILE))
    html = article(client.get(f"/sessions/{sid}").text)
    assert "<h1>Plan</h1>" in html and "<td>inbox</td>" in html
    assert executable(html) == []


def test_the_review_history_has_every_comment_decision_and_learned_note_with_its_time(client, agent, tmp_path):
    sid = awaiting_review(agent, recorded_replies(tmp_path / "rec", "Draft one", "Draft two"))
    post(client, f"/sessions/{sid}", f"/sessions/{sid}/resume", {"decision": "revise", "comment": "Shorter, please"})
    post(client, f"/sessions/{sid}", f"/sessions/{sid}/resume",
         {"decision": "approve", "comment": "Headings should be in sentence case.", "learn": "1"})
    page = client.get(f"/sessions/{sid}").text
    history = re.search(r'<ol class="timeline" data-testid="history">(.*?)</ol>', page, re.S).group(1)
    kinds = re.findall(r'data-kind="(\w+)"', history)
    assert kinds[:5] == ["round", "submitted", "decision", "round", "submitted"]
    assert kinds.count("decision") == 2 and "learned" in kinds and kinds[-1] != "round"
    assert "Requested changes" in history and "Approved" in history
    assert "Shorter, please" in history and "Headings should be in sentence case." in history
    assert "kept for future runs" in history
    times = re.findall(r'<time datetime="([^"]+)">', history)
    assert len(times) == len(kinds) and all(t.startswith("20") for t in times)
    assert "Learned: Saved" in history and "learning: [Learning]" not in page


def test_each_round_s_rules_link_to_the_rule_on_the_learnings_tab(client, agent):
    sid = awaiting_review(agent)
    injected = find_session(sid).injected
    page = client.get(f"/sessions/{sid}").text
    assert injected
    learnings = client.get(LEARNINGS).text
    for rule_id in injected:
        assert f'href="/agents/{AGENT_KEY}/learnings#rule-{rule_id}"' in page
        assert f'id="rule-{rule_id}"' in learnings


def test_the_review_form_has_the_three_decisions_and_nothing_competing(client, agent):
    page = client.get(f"/sessions/{awaiting_review(agent)}").text
    form = re.search(r'<form class="review".*?</form>', page, re.S).group(0)
    assert re.findall(r'<button[^>]*value="(\w+)"', form) == ["approve", "revise", "reject"]
    assert form.index('data-testid="learn"') < form.index("<textarea")  # the box sits beside the comment
    assert form.count("<button") == 3 and 'data-testid="tidy-up"' not in form
    # The spec's Tidy up button on the session view stands apart from the form, and not as a primary action.
    assert re.search(r'<button type="submit" data-testid="tidy-up">Tidy up</button>', page)


def test_a_replayed_run_says_before_request_changes_what_a_revision_can_do(client, agent, tmp_path):
    spent = awaiting_review(agent)  # the example recording: every reply used by the first round
    warning = re.search(r'data-testid="replay-warning">([^<]+)<', client.get(f"/sessions/{spent}").text)
    assert warning and "no reply left" in warning.group(1) and "live model" in warning.group(1)
    roomy = awaiting_review(agent, recorded_replies(tmp_path / "rec", "Draft one", "Draft two"))
    assert "1 left" in client.get(f"/sessions/{roomy}").text


def test_a_revision_that_fails_is_an_error_banner(client, agent):
    sid = awaiting_review(agent)
    answer = post(client, f"/sessions/{sid}", f"/sessions/{sid}/resume", {"decision": "revise", "comment": "More"})
    shown = client.get(answer.headers["location"]).text
    # The revision is withdrawn: the output the reviewer was shown still awaits review, and the form is there.
    assert find_session(sid).status == "awaiting_review"
    assert re.search(r'<div class="flash error"[^>]*>\s*<p>Session \w+: awaiting review\.', shown)
    assert "The revision failed: " in shown and "ran out of model replies" in shown
    assert 'data-kind="withdrawn"' in shown and "Revision failed: " in shown  # and the history says so
    form = re.search(r'<form class="review".*?</form>', shown, re.S).group(0)
    assert re.findall(r'<button[^>]*value="(\w+)"', form) == ["approve", "revise", "reject"]


def test_an_unknown_session_is_a_404_page_in_the_web_s_words(client):
    answer = client.get("/sessions/01NOSUCHSESSION")
    assert answer.status_code == 404
    assert "There is no session" in answer.text and "sessions list" not in answer.text
    assert 'href="/sessions"' in answer.text


def test_a_note_that_could_not_be_saved_is_an_error_banner_with_the_command_that_saves_it(client, agent,
                                                                                         monkeypatch):
    # As `sessions resume --remember` exits 1 and names the command: the approval is decided, the note is
    # not stored, and the page must not show that as a success.
    from agentuse.core import store
    import os

    from reliability.test_disk_full import REAL_FSYNC, fail_writes_under

    sid = awaiting_review(agent)
    failed = fail_writes_under(monkeypatch, store.locate(agent).store_path.parent)
    answer = post(client, f"/sessions/{sid}", f"/sessions/{sid}/resume",
                  {"decision": "approve", "comment": "Keep intros factual", "learn": "on"})
    monkeypatch.setattr(os, "fsync", REAL_FSYNC)  # room again, for the page that shows the result
    shown = client.get(answer.headers["location"]).text
    assert failed and find_session(sid).status == "completed"
    assert re.search(r'<div class="flash error"[^>]*>\s*<p>Session \w+: completed\.', shown), shown
    assert "Could not save the note" in shown and "agentuse learnings add" in shown
