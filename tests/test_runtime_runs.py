"""Full runs through the CLI against the fake Messages API over HTTP: tools, sessions, approval gates,
review decisions and the counters they move."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import text, tool_use, session_id_in

from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.learning import Channel, Learning, Source, State
from agentuse.core.store_format import StoreDoc
from agentuse.runtime.approval import find_session
from agentuse.runtime.review import remembered_notes

pytestmark = pytest.mark.usefixtures("offline_helper")

AGENT = """---
model: anthropic:claude-test
approval: {approval}
learning:  # no automatic capture channel: post-run capture has its own tests (tests/test_capture_*.py)
  apply: true
---

# Blog Writer

Write short productivity blog posts and save each one under `posts/`.
"""

RULE_TEXT = "Keep intros factual rather than promotional"


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    (root / "posts").mkdir(parents=True)
    return root


def make_agent(project, *, approval: bool):
    path = project / "blog.agentuse"
    path.write_text(AGENT.format(approval="true" if approval else "false"))
    location = store.locate(path)
    ih = agent_hash(load_agent(path))
    store.save(location, StoreDoc(name="blog", agent=location.key, learnings=[
        Learning(id="a1b2c3d4", title=RULE_TEXT, date="2026-01-20", src=Source.manual, ch=Channel.corrections, ih=ih),
        Learning(id="e5f6a7b8", title="Use numbered lists for tips", date="2026-01-21", src=Source.auto,
                 ch=Channel.custom, ih=ih, injected=2),
        Learning(id="c9d0e1f2", title="Publish drafts without review", date="2026-01-22", src=Source.manual,
                 ch=Channel.corrections, ih=ih, state=State.quarantined, why="contradicts the contract: \"x\""),
    ]))
    return path, location


def counters(location) -> dict[str, tuple[int, int]]:
    # The seeded rules only: a rule a --remember note saves is the remember path's (tests/test_remember.py).
    seeded = {"a1b2c3d4", "e5f6a7b8", "c9d0e1f2"}
    return {r.id: (r.injected, r.ok) for r in store.load(location).learnings if r.id in seeded}




def test_a_run_with_a_failed_tool_call_then_a_corrected_one(project, cli, fake_anthropic):
    agent, location = make_agent(project, approval=False)
    fake_anthropic.script(
        tool_use("write_file", {"path": "/posts/focus.md", "content": "# Focus\n"}, preamble="Saving the post."),
        tool_use("write_file", {"path": "posts/focus.md", "content": "# Focus\n"}),
        text("Saved the post to posts/focus.md", input_tokens=50, output_tokens=12),
    )
    result = cli("run", str(agent), "Write about focus")
    assert result.stdout.startswith("Saved the post to posts/focus.md\n")
    sid = session_id_in(result.stdout)
    assert f"session {sid} · completed · 98 tokens" in result.stdout  # 11+7, 11+7, 50+12
    assert (project / "posts" / "focus.md").read_text() == "# Focus\n"

    # The system prompt: the agent body, then the active, non-quarantined rules under their heading.
    system = fake_anthropic.requests[0].body["system"]
    assert system.startswith("# Blog Writer") and "## Relevant Learnings" in system
    assert f"- [tip] {RULE_TEXT}" in system and "Publish drafts" not in system
    assert fake_anthropic.requests[0].body["messages"][0]["content"][0]["text"] == "Write about focus"

    session = find_session(sid)
    assert session.status == "completed" and session.agent_key == "blog.agentuse"
    assert [e.type for e in session.events] == [
        "run_start", "model_request", "model_reply", "tool_call", "tool_result", "model_request", "model_reply",
        "tool_call", "tool_result", "model_request", "model_reply", "run_end"]
    start = session.run_start
    assert start.injected == ["a1b2c3d4", "e5f6a7b8"] and start.ih == agent_hash(load_agent(agent))
    assert [(c.input["path"], c.is_error) for c in session.tool_calls] == [("/posts/focus.md", True), ("posts/focus.md", False)]
    assert session.errors == [
        "write_file: path '/posts/focus.md' is outside the project root; use a path relative to the project root"]
    # Injected counted once for the rules sent; no approval, so no `ok`.
    assert counters(location) == {"a1b2c3d4": (1, 0), "e5f6a7b8": (3, 0), "c9d0e1f2": (0, 0)}


def test_approval_gate_revised_twice_then_approved(project, cli, fake_anthropic):
    agent, location = make_agent(project, approval=True)
    fake_anthropic.script(text("Draft one"))
    first = cli("run", str(agent), "Write about focus")
    sid = session_id_in(first.stdout)
    assert "Draft one" in first.stdout
    assert f'agentuse sessions resume {sid} --approve | --comment "..." | --reject [--remember "..."]' in first.stdout
    assert find_session(sid).status == "awaiting_review"

    # A comment: the model gets it on the same conversation and works again; the gate is reached again.
    fake_anthropic.script(text("Draft two, with citations"))
    second = cli("sessions", "resume", sid[:12], "--comment", "Please revise this pass with citations")
    assert "Draft two, with citations" in second.stdout and "awaiting review" in second.stdout
    sent = fake_anthropic.requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"][0]["text"] == "Draft one"
    assert "Please revise this pass with citations" in sent[2]["content"][0]["text"]
    assert fake_anthropic.requests[1].body["system"] == fake_anthropic.requests[0].body["system"]

    # A comment with the Learn flag: recorded with the decision and the output it was about.
    fake_anthropic.script(text("Draft three, sources linked"))
    cli("sessions", "resume", sid, "--comment", "Link the sources", "--remember", "Always include source links before publishing.")
    notes = remembered_notes(find_session(sid))
    assert [(n.text, n.comment, n.reviewed_output) for n in notes] == [
        ("Always include source links before publishing.", "Link the sources", "Draft two, with citations")]

    done = cli("sessions", "resume", sid, "--approve")
    assert f"session {sid} · completed" in done.stdout
    session = find_session(sid)
    assert session.status == "completed" and session.output == "Draft three, sources linked"
    assert [(d.decision, d.comment) for d in session.decisions] == [
        ("revise", "Please revise this pass with citations"), ("revise", "Link the sources"), ("approve", None)]
    types = [e.type for e in session.events]
    assert types.count("approval_request") == 3 and types.count("run_end") == 4 and types.count("run_start") == 1
    assert types.count("round_start") == 2
    # Three rounds, each re-injecting the rules in force: counted three times. Commented on: no `ok`.
    assert counters(location) == {"a1b2c3d4": (3, 0), "e5f6a7b8": (5, 0), "c9d0e1f2": (0, 0)}
    # Nothing left to answer.
    refused = cli("sessions", "resume", sid, "--approve", code=1)
    assert f"session {sid} is completed: only a session awaiting review can be resumed" in refused.stderr


def test_an_uncommented_approval_credits_ok_to_the_injected_rules_only(project, cli, fake_anthropic):
    agent, location = make_agent(project, approval=True)
    for n in range(2):
        fake_anthropic.script(text(f"Post {n}"))
        sid = session_id_in(cli("run", str(agent)).stdout)
        cli("sessions", "resume", sid, "--approve")
    assert counters(location) == {"a1b2c3d4": (2, 2), "e5f6a7b8": (4, 2), "c9d0e1f2": (0, 0)}


def test_an_approval_with_a_note_or_a_rejection_credits_nothing(project, cli, fake_anthropic):
    agent, location = make_agent(project, approval=True)
    fake_anthropic.script(text("Post A"), text("Post B"))
    a = session_id_in(cli("run", str(agent)).stdout)
    cli("sessions", "resume", a, "--approve", "--remember", "Name the tool in every tip.")
    b = session_id_in(cli("run", str(agent)).stdout)
    rejected = cli("sessions", "resume", b, "--reject", "--comment", "Off topic")
    assert f"session {b} · rejected" in rejected.stdout
    assert find_session(b).status == "rejected"
    assert counters(location) == {"a1b2c3d4": (2, 0), "e5f6a7b8": (4, 0), "c9d0e1f2": (0, 0)}
    assert [n.decision for n in remembered_notes(find_session(a))] == ["approve"]


def test_resume_needs_a_decision(project, cli, fake_anthropic):
    agent, _ = make_agent(project, approval=True)
    fake_anthropic.script(text("Post"))
    sid = session_id_in(cli("run", str(agent)).stdout)
    assert "--remember needs a decision" in cli("sessions", "resume", sid, "--remember", "x", code=1).stderr
    assert "choose one of --approve and --reject" in cli("sessions", "resume", sid, "--approve", "--reject", code=1).stderr
    assert find_session(sid).status == "awaiting_review"


def test_json_output(project, cli, fake_anthropic):
    agent, _ = make_agent(project, approval=True)
    fake_anthropic.script(text("Post", input_tokens=20, output_tokens=5))
    payload = json.loads(cli("run", str(agent), "--json").stdout)
    assert payload["status"] == "awaiting_review" and payload["output"] == "Post"
    assert payload["tokens"] == {"input_tokens": 20, "output_tokens": 5, "total": 25}
    assert payload["resume"].startswith(f"agentuse sessions resume {payload['session']} --approve")


def test_without_a_key_the_run_stops_naming_the_variable(project, cli, monkeypatch):
    agent, location = make_agent(project, approval=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = cli("run", str(agent), code=1)
    assert result.stderr.startswith("error: ANTHROPIC_API_KEY is not set: the model anthropic:claude-test needs it.")
    assert result.stderr.count("\n") == 1
    assert not location.session_dir.exists()  # no session, no counter moved
    assert counters(location)["a1b2c3d4"] == (0, 0)


def test_a_model_failure_ends_the_session_failed(project, cli, fake_anthropic):
    from fakes import bad_request

    agent, _ = make_agent(project, approval=False)
    fake_anthropic.script(bad_request("prompt is too long"))
    result = cli("run", str(agent), code=1)
    sid = session_id_in(result.stderr)
    assert "the API answered 400: prompt is too long" in result.stderr
    assert find_session(sid).status == "failed"


def test_sessions_list_and_show(project, cli, fake_anthropic):
    agent, _ = make_agent(project, approval=False)
    fake_anthropic.script(
        tool_use("read_file", {"path": "missing.md"}),
        text("Nothing to read"),
    )
    sid = session_id_in(cli("run", str(agent)).stdout)
    listing = cli("sessions", "list").stdout.splitlines()
    assert listing[0].split() == ["ID", "STATUS", "STARTED", "TOKENS", "AGENT"]
    assert listing[1].startswith(f"{sid}  completed") and listing[1].endswith("36  blog.agentuse")
    assert cli("sessions", "list", "--agent", str(agent)).stdout.count(sid) == 1
    shown = cli("sessions", "show", sid[:8]).stdout
    assert "tool calls (1, 1 failed)" in shown
    assert 'read_file {"path": "missing.md"} -> error: no such file: missing.md' in shown
    assert "tool_result        read_file: ERROR no such file: missing.md" in shown
    data = json.loads(cli("sessions", "show", sid, "--json").stdout)
    assert data["status"] == "completed" and data["tokens"] == {"input_tokens": 22, "output_tokens": 14}
    assert [e["type"] for e in data["events"]][-1] == "run_end"
    assert data["tool_calls"][0]["error"] == "no such file: missing.md"
    assert "no session matches 'ZZZ'" in cli("sessions", "show", "ZZZ", code=1).stderr


def test_warn_once_notices_are_shown_on_the_first_run_only(project, cli, fake_anthropic):
    agent = project / "sugar.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-test\nlearning: true\n---\n\n# Sugar\n\nSay hi.\n")
    (project / "sugar.agentuse.learnings.md").write_text("# Learnings for sugar\n")
    fake_anthropic.script(text("hi"), text("hi again"))
    first = cli("run", str(agent), "-q")
    assert first.stdout == "hi\n"
    assert "learning: true means learning: { capture: true, apply: true }" in first.stderr
    assert "learnings found at the old location for sugar.agentuse\n  sugar.agentuse.learnings.md\n" in first.stderr
    second = cli("run", str(agent), "-q")
    assert second.stdout == "hi again\n" and second.stderr == ""


def test_the_runs_stranded_notice_is_the_one_doctor_renders(project, cli, fake_anthropic):
    """One renderer for the run's warn-once text, doctor and the learnings list: the wording cannot drift."""
    import subprocess

    from agentuse.core.status_text import stranded_notice

    subprocess.run(["git", "init", "-q", str(project)], check=True)  # the project root: paths below it
    (project / "agents").mkdir()
    agent = project / "agents" / "sugar.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-test\n---\n\n# Sugar\n\nSay hi.\n")
    (project / "agents" / "sugar.agentuse.learnings.md").write_text("# Learnings for sugar\n")
    fake_anthropic.script(text("hi"))
    notice = stranded_notice("agents/sugar.agentuse", "agents/sugar.agentuse.learnings.md")
    assert notice == ["learnings found at the old location for agents/sugar.agentuse",
                      "  agents/sugar.agentuse.learnings.md",
                      "  No longer read. Move them:  agentuse learnings migrate --all"]
    assert "\n".join(notice) + "\n" in cli("run", str(agent), "-q").stderr
    doctor = cli("doctor", str(agent)).stdout.splitlines()
    start = doctor.index(f"  {notice[0]}")
    assert doctor[start:start + 3] == [f"  {line}" for line in notice]  # doctor indents its section


def test_model_override_and_quiet_gate_hint(project, cli, fake_anthropic):
    agent, _ = make_agent(project, approval=True)
    fake_anthropic.script(text("Post"))
    result = cli("run", str(agent), "--model", "anthropic:claude-other", "-q")
    assert result.stdout == "Post\n"
    assert result.stderr.startswith("Awaiting review. Resume with:  agentuse sessions resume ")
    assert fake_anthropic.requests[0].body["model"] == "claude-other"
    sid = session_id_in(result.stderr)
    assert find_session(sid).model == "anthropic:claude-other"


def test_one_resumer_at_a_time(project, cli, fake_anthropic):
    import filelock

    agent, location = make_agent(project, approval=True)
    fake_anthropic.script(text("Post"))
    sid = session_id_in(cli("run", str(agent)).stdout)
    with filelock.FileLock(f"{location.session_dir / sid}.jsonl.lock"):
        busy = cli("sessions", "resume", sid, "--approve", code=1)
    assert f"session {sid} is being resumed by another process" in busy.stderr
    assert find_session(sid).status == "awaiting_review"


def test_an_unreadable_store_leaves_the_gate_unanswered(project, cli, fake_anthropic):
    agent, location = make_agent(project, approval=True)
    fake_anthropic.script(text("Post"))
    sid = session_id_in(cli("run", str(agent)).stdout)
    broken = location.store_path.read_text().replace("### [tip]", "### [bogus]", 1)
    location.store_path.write_text(broken)
    refused = cli("sessions", "resume", sid, "--approve", code=1)
    assert "unknown category 'bogus'" in refused.stderr and "fix the learnings file" in refused.stderr
    assert find_session(sid).status == "awaiting_review"
    assert location.store_path.read_text() == broken
    ran = cli("run", str(agent), code=1)
    assert "unknown category 'bogus'" in ran.stderr and len(list(location.session_dir.glob("*.jsonl"))) == 1


def test_learning_result_lines_show_in_the_output_and_the_log(project, cli, fake_anthropic, capsys):
    from agentuse.cli.run import show_result
    from agentuse.runtime.review import record_learning_result
    from agentuse.runtime.runner import result_of
    from agentuse.runtime.session import SessionLog

    agent, _ = make_agent(project, approval=False)
    fake_anthropic.script(text("Post"))
    sid = session_id_in(cli("run", str(agent)).stdout)
    log = SessionLog(Path(find_session(sid).path))
    line = "Extracted 2 learning(s), 1 quarantined → ~/.local/share/agentuse/project/x/blog.learnings.md"
    record_learning_result(log, line)
    show_result(result_of(log), as_json=False, quiet=False)
    assert capsys.readouterr().out == f"Post\n{line}\n\nsession {sid} · completed · 18 tokens\n"
    assert find_session(sid).status == "completed" and find_session(sid).learning == [line]
    assert f"learning: {line}" in cli("sessions", "show", sid).stdout


def test_a_revision_that_fails_still_reports_the_note_it_saved(project, cli, fake_anthropic):
    # Spec (Deliberate Learning): the run names what a --remember note became. The note is saved even when
    # the revision round fails; the reviewer must be told so, or they will save it again.
    from fakes import bad_request

    agent, location = make_agent(project, approval=True)
    fake_anthropic.script(text("Post"), bad_request("prompt is too long"))
    sid = session_id_in(cli("run", str(agent)).stdout)
    failed = cli("sessions", "resume", sid, "--comment", "Add citations", "--remember", "Name the tool in every tip.",
                 code=1)
    assert "the API answered 400: prompt is too long" in failed.stderr
    assert '[Learning] Saved "Name the tool in every tip"' in failed.stdout
    assert any(r.title == "Name the tool in every tip" for r in store.load(location).learnings)



@pytest.mark.parametrize("decision", [["--approve"], ["--reject"], ["--comment", "Add citations"]])
def test_a_note_for_an_unreadable_store_leaves_the_gate_unanswered(project, cli, fake_anthropic, decision):
    # A --remember note cannot be saved into a file that does not parse: stop before answering the gate, as
    # an uncommented approval does, so the reviewer fixes the file and answers again with the note.
    agent, location = make_agent(project, approval=True)
    fake_anthropic.script(text("Post"))
    sid = session_id_in(cli("run", str(agent)).stdout)
    broken = location.store_path.read_text().replace("### [tip]", "### [bogus]", 1)
    location.store_path.write_text(broken)
    refused = cli("sessions", "resume", sid, *decision, "--remember", "Name the tool in every tip.", code=1)
    assert "unknown category 'bogus'" in refused.stderr and "fix the learnings file" in refused.stderr
    assert refused.stderr.count("\n") == 1
    assert find_session(sid).status == "awaiting_review"
    assert location.store_path.read_text() == broken


def test_a_log_whose_run_start_is_unreadable_says_why_it_cannot_be_resumed(project, cli, fake_anthropic):
    agent, _ = make_agent(project, approval=True)
    fake_anthropic.script(text("Post"))
    sid = session_id_in(cli("run", str(agent)).stdout)
    path = Path(find_session(sid).path)
    broken = "{" + path.read_text()  # the first line, run_start, no longer parses
    path.write_text(broken)
    refused = cli("sessions", "resume", sid, "--approve", code=1)
    assert "only a session awaiting review" not in refused.stderr  # it *is* awaiting review
    assert f"{path.name}:1: unreadable line" in refused.stderr and "no run_start" in refused.stderr
    assert refused.stderr.count("\n") == 1
    assert path.read_text() == broken
