"""A revision (`sessions resume --comment`) whose model call fails: the session stays awaiting review on the
output the reviewer was shown, the failure is one line, a non-zero exit and an event in the log, and the
reviewer can still approve, reject or comment again. Nothing given with the failed comment is lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import bad_request, text, tool_use, session_id_in

from agentuse.core import store
from agentuse.core.learning import Channel, Learning, Source
from agentuse.core.store_format import StoreDoc
from agentuse.runtime.approval import find_session
from agentuse.runtime.events import ModelReplyEvent, RunEnd
from agentuse.runtime.messages import TextBlock
from agentuse.runtime.session import SessionLog

pytestmark = pytest.mark.usefixtures("offline_helper")

AGENT = """---
model: anthropic:claude-test
approval: true
learning:
  apply: true
---

# Writer

Write short posts.
"""


@pytest.fixture
def agent(tmp_path):
    path = tmp_path / "project" / "w.agentuse"
    path.parent.mkdir(parents=True)
    path.write_text(AGENT)
    return path




def awaiting(cli, agent) -> str:
    return session_id_in(cli("run", agent, "write a post").stdout)


def test_a_failed_revision_leaves_the_output_awaiting_review_and_it_can_still_be_approved(agent, cli, fake_anthropic):
    fake_anthropic.script(text("Here is the post."), bad_request("invalid request"))
    sid = awaiting(cli, agent)
    failed = cli("sessions", "resume", sid, "--comment", "Make it shorter", code=1)
    assert failed.stderr.count("\n") == 1 and failed.stderr.startswith("error: the revision failed: ")
    assert "the API answered 400: invalid request" in failed.stderr
    assert f"session {sid} still awaits review" in failed.stderr
    session = find_session(sid)
    assert session.status == "awaiting_review" and session.output == "Here is the post."
    end = [e for e in session.events if isinstance(e, RunEnd)][-1]  # the failure is in the log
    assert end.status == "awaiting_review" and "400: invalid request" in end.error
    approved = cli("sessions", "resume", sid, "--approve")
    assert approved.stdout.endswith(f"session {sid} · completed · 18 tokens\n")
    done = find_session(sid)
    assert done.status == "completed" and done.output == "Here is the post."
    assert len(fake_anthropic.requests) == 2  # approving asked the model nothing


def test_after_a_failed_revision_a_new_comment_revises_the_output_that_was_shown(agent, cli, fake_anthropic):
    fake_anthropic.script(text("Here is the post."), bad_request("invalid request"), text("Short post."))
    sid = awaiting(cli, agent)
    cli("sessions", "resume", sid, "--comment", "Make it shorter", code=1)
    revised = cli("sessions", "resume", sid, "--comment", "Shorter, please")
    assert revised.stdout.startswith("Short post.")
    assert find_session(sid).status == "awaiting_review" and find_session(sid).output == "Short post."
    # The model sees the output it wrote and the comment that now stands, not the withdrawn one: the
    # conversation still alternates user / assistant, as every provider requires.
    messages = fake_anthropic.requests[2].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert "Shorter, please" in json.dumps(messages[-1]) and "Make it shorter" not in json.dumps(messages)


def test_a_revision_that_fails_after_a_tool_call_is_withdrawn_whole(agent, cli, fake_anthropic):
    (agent.parent / "posts").mkdir()
    fake_anthropic.script(text("Here is the post."),
                          tool_use("write_file", {"path": "posts/a.md", "content": "short"}),
                          bad_request("invalid request"), text("Short post."))
    sid = awaiting(cli, agent)
    cli("sessions", "resume", sid, "--comment", "Make it shorter", code=1)
    assert find_session(sid).output == "Here is the post."
    cli("sessions", "resume", sid, "--comment", "Shorter, please")
    messages = fake_anthropic.requests[3].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]  # no dangling tool turn


def test_the_failed_revision_s_note_is_saved_and_the_gate_stays_open(agent, cli, fake_anthropic):
    fake_anthropic.script(text("Here is the post."), bad_request("prompt is too long"))
    sid = awaiting(cli, agent)
    failed = cli("sessions", "resume", sid, "--comment", "Add citations", "--remember", "Name the tool in every tip.",
                 code=1)
    assert '[Learning] Saved "Name the tool in every tip"' in failed.stdout
    assert any(r.title == "Name the tool in every tip" for r in store.load(store.locate(agent)).learnings)
    assert find_session(sid).status == "awaiting_review"
    rejected = cli("sessions", "resume", sid, "--reject")
    assert "Saved" not in rejected.stdout  # the note was saved once, by the resume it came with
    assert find_session(sid).status == "rejected"
    titles = [r.title for r in store.load(store.locate(agent)).learnings]
    assert titles.count("Name the tool in every tip") == 1


def test_the_rules_in_force_stay_those_of_the_output_under_review(agent, cli, fake_anthropic):
    location = store.locate(agent)
    first = Learning(id="a1b2c3d4", title="Keep intros factual", date="2026-01-20", src=Source.manual,
                     ch=Channel.corrections)
    store.save(location, StoreDoc(name="w", agent=location.key, learnings=[first]))
    fake_anthropic.script(text("Here is the post."), bad_request("invalid request"))
    sid = awaiting(cli, agent)
    assert find_session(sid).injected == ["a1b2c3d4"]
    later = first.model_copy(update={"id": "e5f6a7b8", "title": "Use numbered lists"})
    store.save(location, StoreDoc(name="w", agent=location.key, learnings=[first, later]))
    cli("sessions", "resume", sid, "--comment", "Make it shorter", code=1)
    assert find_session(sid).injected == ["a1b2c3d4"]  # the withdrawn round's rules wrote nothing under review


def test_json_says_awaiting_review_with_the_error_and_exits_1(agent, cli, fake_anthropic):
    fake_anthropic.script(text("Here is the post."), bad_request("invalid request"))
    sid = awaiting(cli, agent)
    payload = json.loads(cli("sessions", "resume", sid, "--comment", "Make it shorter", "--json", code=1).stdout)
    assert payload["status"] == "awaiting_review" and payload["output"] == "Here is the post."
    assert "400: invalid request" in payload["error"] and payload["resume"].startswith(f"agentuse sessions resume {sid}")


def test_a_replay_with_no_reply_left_keeps_the_gate_open(agent, invoke, tmp_path):
    recording = SessionLog.create(tmp_path / "rec", "01REC")
    recording.append(ModelReplyEvent(content=[TextBlock(text="Draft one")]))
    sid = json.loads(invoke("run", agent, "--model", f"replay:{recording.path}", "--json").stdout)["session"]
    failed = invoke("sessions", "resume", sid, "--comment", "Shorter", code=1)
    assert "ran out of model replies" in failed.stderr and failed.stderr.count("\n") == 1
    assert find_session(sid).status == "awaiting_review" and find_session(sid).output == "Draft one"
    invoke("sessions", "resume", sid, "--reject")
    assert find_session(sid).status == "rejected" and find_session(sid).output == "Draft one"


def test_a_comment_after_a_failed_revision_answers_the_rules_of_the_output_under_review(agent, cli, fake_anthropic):
    # "Commented on about it" compares a comment with the rules of the round it answers: after a withdrawn
    # revision that is still the round whose output is under review, not the round that failed.
    from agentuse.runtime.effectiveness import digest
    from agentuse.runtime.session import read_events

    location = store.locate(agent)
    cite = Learning(id="a1b2c3d4", title="Link the sources you cite", date="2026-01-20", src=Source.manual,
                    ch=Channel.corrections)
    lists = cite.model_copy(update={"id": "e5f6a7b8", "title": "Use numbered lists"})
    store.save(location, StoreDoc(name="w", agent=location.key, learnings=[cite]))
    fake_anthropic.script(text("Here is the post."), bad_request("invalid request"), text("Post with links."))
    sid = awaiting(cli, agent)
    store.save(location, StoreDoc(name="w", agent=location.key, learnings=[lists]))  # the failed round's rules
    cli("sessions", "resume", sid, "--comment", "Make it shorter", code=1)
    cli("sessions", "resume", sid, "--comment", "Link the sources, please")
    assert digest(read_events(location.session_dir / f"{sid}.jsonl")[0]).about == ["a1b2c3d4"]


def test_a_revision_interrupted_in_this_process_leaves_the_gate_open(agent, cli, fake_anthropic, monkeypatch):
    from agentuse.runtime import approval

    class Interrupted:
        model = "anthropic:claude-test"

        def complete(self, call):
            raise KeyboardInterrupt

    fake_anthropic.script(text("Here is the post."))
    sid = awaiting(cli, agent)
    monkeypatch.setattr(approval, "provider_for", lambda *a, **kw: Interrupted())
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C still stops the command
        approval.resume(sid, decision="revise", comment="Make it shorter")
    session = find_session(sid)
    assert session.status == "awaiting_review" and session.output == "Here is the post."
    assert "interrupted: KeyboardInterrupt" in session.errors[-1]
    assert approval.resume(sid, decision="approve").status == "completed"  # approving asks no model


@pytest.mark.parametrize("then", [["--approve"], ["--comment", "Shorter, please"]])
def test_a_revision_whose_process_was_killed_is_withdrawn_by_the_next_resume(agent, cli, fake_anthropic, tmp_path,
                                                                           then):
    # Killed mid-revision (no run_end after its decision): the next resume holds the log's lock, so that
    # process is gone; its revision is withdrawn like one that failed, and this answer goes ahead.
    import subprocess
    import sys

    from agentuse.runtime.events import ApprovalDecision, RoundStart

    fake_anthropic.script(text("Here is the post."), text("Short post."))
    sid = awaiting(cli, agent)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    log = SessionLog(store.locate(agent).session_dir / f"{sid}.jsonl")
    log.append(ApprovalDecision(decision="revise", comment="Make it shorter", pid=gone.pid))
    log.append(RoundStart(round=2, ih="0" * 12, system="# Writer", injected=[]))
    assert find_session(sid).status == "crashed"
    cli("sessions", "resume", sid, *then)
    session = find_session(sid)
    assert session.status == ("completed" if then == ["--approve"] else "awaiting_review")
    assert session.output == ("Here is the post." if then == ["--approve"] else "Short post.")
    assert any("the revision was interrupted" in e for e in session.errors)  # the log says what happened


def test_a_session_an_older_version_marked_failed_after_its_revision_failed_still_awaits_review(agent, cli,
                                                                                               fake_anthropic):
    # Before a failed revision kept the gate open, it ended the session: run_end "failed", no output. Such a
    # log reads as what it was, a withdrawn revision, so its reviewer can still approve what they were shown.
    fake_anthropic.script(text("Here is the post."), bad_request("invalid request"))
    sid = awaiting(cli, agent)
    cli("sessions", "resume", sid, "--comment", "Make it shorter", code=1)
    path = Path(find_session(sid).path)
    lines = path.read_text().splitlines()
    last = json.loads(lines[-1])
    assert last["type"] == "run_end"
    lines[-1] = json.dumps({**last, "status": "failed", "output": None})  # as the older version wrote it
    path.write_text("\n".join(lines) + "\n")
    session = find_session(sid)
    assert session.status == "awaiting_review" and session.output == "Here is the post."
    approved = cli("sessions", "resume", sid, "--approve")
    assert approved.stdout.endswith(f"session {sid} · completed · 18 tokens\n")


def test_a_run_that_failed_before_any_review_stays_failed(agent, cli, fake_anthropic):
    fake_anthropic.script(bad_request("invalid request"))
    out = cli("run", agent, "write a post", code=1)
    sid = session_id_in(out.stdout + out.stderr)
    assert find_session(sid).status == "failed"
