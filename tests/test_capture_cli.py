"""Capture and remember through the CLI: the post-run hook of `agentuse run` (end to end through the
Anthropic helper against the fake Messages API over HTTP), `learnings capture --session`, `learnings add`,
`sessions resume --remember`, the Prefect hand-off event, and `learning: true` making no post-run call."""

from __future__ import annotations

import re

import pytest
from capture_support import UPLOAD_FAIL, make_agent, make_session, rule, seed, stored
from fakes.scripted_helper import ScriptedHelper, passing, verdicts
from fakes import overloaded, text, tool_use
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core.helper import protocol as p
from agentuse.core.helper.factory import override_helper
from agentuse.core.learning import Channel, Source, State
from agentuse.runtime.approval import find_session

TOOLS_AND_CUSTOM = """learning:
  capture:
    addons: [tool-errors]
    custom: Only capture rules about file paths and saving."""
APPROVAL = "approval: true\nlearning: true"


def sid_of(output: str) -> str:
    return re.search(r"session (01[0-9A-HJKMNP-TV-Z]{24})", output).group(1)


def agent_run_replies():
    """A run whose first write fails (absolute path) and whose corrected write succeeds."""
    return [tool_use("write_file", {"path": "/posts/focus.md", "content": "# Focus\n"}),
            tool_use("write_file", {"path": "posts/focus.md", "content": "# Focus\n"}),
            text("Saved the post to posts/focus.md")]


def vet_reply(request):
    ids = re.findall(r'<candidate id="([^"]+)"', request.text)
    return tool_use("submit_vet", {"verdicts": [{"id": i, "verdict": "pass", "detail": ""} for i in ids]})


def test_run_captures_end_to_end_through_the_anthropic_helper_over_http(tmp_path, cli, fake_anthropic):
    agent = make_agent(tmp_path / "p", TOOLS_AND_CUSTOM)
    (agent.parent / "posts").mkdir()
    extract = tool_use("submit_extract", {"candidates": [
        {"category": "tool-usage", "title": "Write posts with project-relative paths",
         "body": "Pass write_file a path relative to the project root, e.g. posts/<slug>.md."}]})
    fake_anthropic.script(*agent_run_replies(), extract, overloaded(), vet_reply)
    result = cli("run", agent, "Write about focus")

    assert [r.forced_tool for r in fake_anthropic.requests[3:]] == ["submit_extract", "submit_vet", "submit_vet"]
    line = next(l for l in result.stdout.splitlines() if l.startswith("Extracted"))
    assert line.startswith("Extracted 2 learning(s), 0 quarantined → ") and line.endswith("blog.learnings.md")
    assert find_session(sid_of(result.stdout)).learning == [line]  # the same line in the session log
    assert {(r.ch, r.state) for r in stored(agent)} == {(Channel.tool_errors, State.active),
                                                        (Channel.custom, State.active)}


@pytest.mark.parametrize("learning", ["learning: true", "learning:\n  capture: true\n  apply: true"])
def test_learning_true_alone_makes_no_post_run_model_call(tmp_path, cli, fake_anthropic, learning):
    agent = make_agent(tmp_path / "p", learning)
    (agent.parent / "posts").mkdir()
    fake_anthropic.script(*agent_run_replies())
    result = cli("run", agent, "Write about focus")
    assert len(fake_anthropic.requests) == 3  # the run's own model calls, nothing after it
    assert "Extracted" not in result.stdout and find_session(sid_of(result.stdout)).learning == []


def test_learnings_capture_a_recorded_session(tmp_path, cli):
    agent = make_agent(tmp_path / "p", TOOLS_AND_CUSTOM)
    session = make_session(agent, UPLOAD_FAIL)
    helper = ScriptedHelper(extract=[p.ExtractAnswer(candidates=[p.Draft(title="Save under posts/")])],
                            vet=[passing])
    with override_helper(helper):
        result = cli("learnings", "capture", agent, "--session", session.stem[:12])
    assert result.stdout.startswith("Extracted 2 learning(s), 0 quarantined → ")
    assert find_session(session.stem).learning == result.stdout.strip().splitlines()


@pytest.mark.parametrize("given", ["id", "path"])
def test_learnings_capture_refuses_a_session_of_another_agent(tmp_path, cli, given):
    writer = make_agent(tmp_path / "p", TOOLS_AND_CUSTOM)
    editor = make_agent(tmp_path / "p", TOOLS_AND_CUSTOM, name="editor.agentuse")
    session = make_session(writer, UPLOAD_FAIL)
    helper = ScriptedHelper(extract=[p.ExtractAnswer(candidates=[p.Draft(title="Save under posts/")])],
                            vet=[passing])
    with override_helper(helper):
        refused = cli("learnings", "capture", editor, "--session", session.stem if given == "id" else session, code=1)
    assert refused.stderr.count("\n") == 1
    assert f"session {session.stem} is a run of {writer}, not of {editor}" in refused.stderr
    assert not any(helper.requests.values()) and stored(editor) == stored(writer) == []  # no model call, nothing stored
    assert find_session(session.stem).learning == []


def test_learnings_capture_without_a_channel_says_so(tmp_path, cli):
    agent = make_agent(tmp_path / "p", "learning: true")
    result = cli("learnings", "capture", agent, "--session", str(make_session(agent, UPLOAD_FAIL)))
    assert "No automatic capture channel is configured" in result.stdout and stored(agent) == []


def test_learnings_add_and_doctor_on_a_correction_outside_the_cap(tmp_path, cli):
    agent = make_agent(tmp_path / "p", "learning:\n  max: 1")
    seed(agent, [rule("m0000001", "Cite sources inline", src=Source.manual, ch=Channel.corrections)])
    helper = ScriptedHelper(ground=[p.GroundAnswer(rule=p.Draft(title="Keep intros factual"))],
                            audit=[p.AuditAnswer()], reconcile=[p.ReconcileAnswer(action="new")], vet=[passing])
    with override_helper(helper):
        result = cli("learnings", "add", agent, "keep intros factual")
    assert result.stdout.splitlines()[0].startswith('[Learning] Saved "Keep intros factual" (id:')
    assert '1 correction(s) sit outside this agent\'s 1-rule limit and do NOT reach it ("Cite sources inline"' \
        in result.stdout
    assert all(r.src is Source.manual and r.state is State.active for r in stored(agent))
    doctor = "\n".join(line.strip() for line in cli("doctor", agent).stdout.splitlines())
    assert ("1 correction(s) sit outside this agent's 1-rule limit and do NOT reach it -\n"
            "they could not be folded into an existing rule, and no auto-extracted rule was\n"
            "left to trade away.") in doctor


def test_resume_with_remember_saves_the_note_grounded_in_the_reviewed_output(tmp_path, cli, fake_anthropic):
    agent = make_agent(tmp_path / "p", APPROVAL)
    fake_anthropic.script(text("Tired of mornings? This AMAZING system fixes everything!"))
    sid = sid_of(cli("run", agent, "Write a post").stdout)
    helper = ScriptedHelper(
        ground=[p.GroundAnswer(rule=p.Draft(title="For informational posts, keep intros factual"))],
        audit=[p.AuditAnswer()], reconcile=[p.ReconcileAnswer(action="new")],
        vet=[lambda r: verdicts(r)])
    with override_helper(helper):
        result = cli("sessions", "resume", sid, "--approve", "--remember", "this intro is too salesy")
    assert '[Learning] Saved "For informational posts, keep intros factual"' in result.stdout
    assert "AMAZING system" in helper.requests["ground"][0].reviewed_output
    [saved] = stored(agent)
    assert (saved.src, saved.ch, saved.sess) == (Source.manual, Channel.corrections, sid)
    assert any(l.startswith('[Learning] Saved "For informational') for l in find_session(sid).learning)
    assert len(fake_anthropic.requests) == 1  # learning: true: no capture after the approval


def test_with_capture_via_prefect_the_run_emits_the_event_instead(tmp_path, cli, fake_anthropic, monkeypatch):
    import prefect.events

    emitted = []

    def fake_emit(**event):
        emitted.append(event)
        return object()  # Prefect took it

    from agentuse.flows import handoff

    monkeypatch.setattr(prefect.events, "emit_event", fake_emit)
    monkeypatch.setattr(handoff, "unserved_capture", lambda: None)  # a served post-run-capture deployment
    monkeypatch.setenv("AGENTUSE_CAPTURE_VIA", "prefect")
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    agent = make_agent(tmp_path / "p", TOOLS_AND_CUSTOM)
    (agent.parent / "posts").mkdir()
    fake_anthropic.script(*agent_run_replies())
    result = cli("run", agent, "Write about focus")
    sid = sid_of(result.stdout)
    [event] = emitted
    assert event["event"] == "agentuse.run.completed"
    assert event["resource"]["prefect.resource.id"] == f"agentuse.session.{sid}"
    assert event["related"] == [{"prefect.resource.id": "agentuse.agent.blog.agentuse",
                                 "prefect.resource.role": "agent", "prefect.resource.name": "blog.agentuse",
                                 "agentuse.agent-file": str(agent)}]
    assert len(fake_anthropic.requests) == 3 and stored(agent) == []  # not captured inline: never both
    assert f"[Learning] Capture handed to Prefect: agentuse.run.completed for session {sid}" in result.stdout


def test_with_capture_via_prefect_and_nothing_serving_it_the_run_captures_here_and_says_so(tmp_path, cli,
                                                                                           fake_anthropic,
                                                                                           monkeypatch):
    # Issue 14: "Capture handed to Prefect" was printed with no `agentuse deploy serve` running, and no flow
    # run ever existed. The API here answers nothing (port 9): the run captures inline, with the reason.
    import prefect.events

    emitted = []
    monkeypatch.setattr(prefect.events, "emit_event", lambda **event: emitted.append(event) or object())
    monkeypatch.setenv("AGENTUSE_CAPTURE_VIA", "prefect")
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")
    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    addons: [tool-errors]")
    (agent.parent / "posts").mkdir()
    fake_anthropic.script(*agent_run_replies())
    result = cli("run", agent, "Write about focus")
    assert emitted == [] and "Capture handed to Prefect" not in result.stdout
    [line] = [l for l in result.stdout.splitlines() if l.startswith("[Learning] Captured here, not by Prefect: ")]
    assert "http://127.0.0.1:9/api" in line
    assert "Extracted 1 learning(s), 0 quarantined" in result.stdout and len(stored(agent)) == 1


def test_with_capture_via_prefect_and_no_api_in_the_environment_the_run_says_why_it_captured_here(
        tmp_path, cli, fake_anthropic, monkeypatch):
    # A Prefect user sets the API in a profile (`prefect config set PREFECT_API_URL=...`): `deploy serve`
    # reads it there, but a run reads the environment only (so an inline command never imports prefect),
    # and AGENTUSE_CAPTURE_VIA=prefect was then ignored without a word.
    monkeypatch.setenv("AGENTUSE_CAPTURE_VIA", "prefect")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    addons: [tool-errors]")
    (agent.parent / "posts").mkdir()
    fake_anthropic.script(*agent_run_replies())
    result = cli("run", agent, "Write about focus")
    [line] = [l for l in result.stdout.splitlines() if l.startswith("[Learning] Captured here, not by Prefect: ")]
    assert "AGENTUSE_CAPTURE_VIA=prefect" in line and "export PREFECT_API_URL" in line
    assert "Extracted 1 learning(s), 0 quarantined" in result.stdout and len(stored(agent)) == 1


def test_a_capture_that_needs_no_model_builds_no_helper(tmp_path):
    """tool-errors only, replayed offline with no key: captured, and no helper (nor its offline notice)."""
    from pathlib import Path

    recording = Path(__file__).resolve().parents[1] / "examples" / "sessions" / "blog-writer-tool-error.jsonl"
    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    addons: [tool-errors]")
    (agent.parent / "posts").mkdir()
    result = CliRunner().invoke(app, ["run", str(agent), "--model", f"replay:{recording}"])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert "Extracted 1 learning(s), 0 quarantined" in result.stdout
    assert "offline evaluator" not in result.stderr
    [record] = stored(agent)
    assert (record.ch, record.tool) == (Channel.tool_errors, "write_file")


def test_resume_with_remember_announces_the_offline_evaluator_once(tmp_path):
    """The note and the capture after the approval each need a helper: one command, one notice."""
    from pathlib import Path

    recording = Path(__file__).resolve().parents[1] / "examples" / "sessions" / "blog-writer-tool-error.jsonl"
    agent = make_agent(tmp_path / "p", "approval: true\n" + TOOLS_AND_CUSTOM)
    (agent.parent / "posts").mkdir()
    runner = CliRunner()
    run = runner.invoke(app, ["run", str(agent), "Write a post", "--model", f"replay:{recording}"])
    assert run.exit_code == 0 and "awaiting review" in run.stdout, (run.stdout, run.stderr)
    result = runner.invoke(app, ["sessions", "resume", sid_of(run.stdout), "--approve",
                                 "--remember", "Always include source links before publishing."])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert '[Learning] Saved "' in result.stdout and "Extracted " in result.stdout  # both used the helper
    assert result.output.count("Helper calls run on the embedded offline evaluator") == 1, result.output


def test_resume_messages_name_the_agent_file_as_typed_here(tmp_path, monkeypatch):
    # Sessions record absolute paths; the spec's messages read "resolve the conflict in ./blog-writer.agentuse".
    from agentuse.flows.post_run import as_typed

    (tmp_path / "agents").mkdir()
    agent = tmp_path / "agents" / "blog.agentuse"
    monkeypatch.chdir(tmp_path)
    assert as_typed(agent) == "./agents/blog.agentuse"
    monkeypatch.chdir(tmp_path / "agents")
    assert as_typed(tmp_path / "elsewhere.agentuse") == str(tmp_path / "elsewhere.agentuse")


def test_learnings_capture_whose_channel_fails_exits_1(tmp_path, cli, fake_anthropic):
    """The command's whole job is the capture: a scheduled `learnings capture` whose model was down printed
    'The custom channel failed ...; nothing was captured from it' and exited 0, so the job read as passed.
    What the other channels did is still stored and printed."""
    from fakes import bad_request

    agent = make_agent(tmp_path / "p", TOOLS_AND_CUSTOM)
    session = make_session(agent, UPLOAD_FAIL)
    fake_anthropic.script(bad_request("model unavailable"))
    result = cli("learnings", "capture", agent, "--session", session.stem, code=1)
    assert result.stdout.startswith("Extracted 1 learning(s), 0 quarantined → ")  # tool-errors still captured
    assert "[Learning] The custom channel failed" in result.stdout
    assert {r.ch for r in stored(agent)} == {Channel.tool_errors}


def test_learnings_capture_whose_vet_fails_exits_1(tmp_path, cli, fake_anthropic):
    """Free-form candidates are never stored unvetted: with the vet down, the capture stored nothing of them."""
    from fakes import bad_request

    agent = make_agent(tmp_path / "p", TOOLS_AND_CUSTOM)
    session = make_session(agent)
    extract = tool_use("submit_extract", {"candidates": [{"category": "tip", "title": "Save under posts/",
                                                         "body": "Save each post under posts/."}]})
    fake_anthropic.script(extract, bad_request("model unavailable"))
    result = cli("learnings", "capture", agent, "--session", session.stem, code=1)
    assert "[Learning] The vet call failed" in result.stdout and stored(agent) == []
