"""What a request may carry into `agentuse serve`. Its forms hold a note, a comment or a rule's new wording:
text, and never a megabyte of it. Anything past that, or a file, is refused, not read into memory or spooled
to disk: a page on another port of 127.0.0.1 is the same site, so the browser sends the cookies along with
whatever upload it posts."""

from __future__ import annotations

import pytest

from agentuse.core import store
from agentuse.serve.app import create_app
from agentuse.serve.limits import MAX_BODY_BYTES
from serve_project import AGENT_KEY, SERVE_TOKEN, csrf_of, make_project, signed_in

LEARNINGS = f"/agents/{AGENT_KEY}/learnings"
ADD = f"/agents/{AGENT_KEY}/learnings/add"


@pytest.fixture
def agent(tmp_path):
    return make_project(tmp_path / "blog")


@pytest.fixture
def client(agent):
    return signed_in(create_app(agent.parent.parent, token=SERVE_TOKEN))


def rules(agent) -> int:
    return len(store.load(store.locate(agent)).learnings)


def test_a_body_over_the_limit_is_a_413_page_and_nothing_is_saved(client, agent):
    before = rules(agent)
    csrf = csrf_of(client.get(LEARNINGS).text)
    fields = {"csrf": csrf, "text": "Cite the study.", **{f"pad{i}": "x" * 8192 for i in range(MAX_BODY_BYTES // 8192 + 1)}}
    answer = client.post(ADD, data=fields, follow_redirects=False)
    assert answer.status_code == 413 and 'data-testid="problem"' in answer.text
    assert rules(agent) == before


def test_a_streamed_body_without_a_length_is_cut_at_the_limit(client, agent):
    before = rules(agent)
    csrf = csrf_of(client.get(LEARNINGS).text)
    sent = []

    def chunks():
        yield f"csrf={csrf}&text=Cite+the+study.&pad=".encode()
        for _ in range(MAX_BODY_BYTES // 65536 + 8):
            sent.append(1)
            yield b"x" * 65536

    answer = client.post(ADD, content=chunks(), headers={"Content-Type": "application/x-www-form-urlencoded"},
                         follow_redirects=False)
    assert answer.status_code == 413 and rules(agent) == before


def test_a_file_is_never_taken_for_a_note(client, agent):
    before = rules(agent)
    csrf = csrf_of(client.get(LEARNINGS).text)
    answer = client.post(ADD, data={"csrf": csrf}, files={"text": ("note.txt", b"Cite the study.", "text/plain")},
                         follow_redirects=False)
    assert answer.status_code == 400 and rules(agent) == before  # it saved "UploadFile(filename='note.txt', ...)" as a rule
