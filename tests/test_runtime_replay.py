"""`replay:` runs: the recorded example plays through the real loop and tools with no key and no network;
a crashed run leaves a readable log that says so."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.runtime.approval import find_session
from agentuse.runtime.events import ModelReplyEvent, RunStart
from agentuse.runtime.messages import TextBlock, ToolUseBlock
from agentuse.runtime.session import SessionLog, read_events

from capture_support import EXAMPLE_SESSION, copy_example


def invoke(*args: str, code: int = 0):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return result


@pytest.fixture
def blog(tmp_path):
    return copy_example(tmp_path / "blog")


def test_the_recorded_example_replays_through_the_real_tools(blog):
    result = invoke("run", str(blog), "Write this week's post", "--model", f"replay:{EXAMPLE_SESSION}")
    assert result.stdout.startswith("Saved to posts/two-minute-inbox-rule.md:")
    written = (blog.parent / "posts" / "two-minute-inbox-rule.md").read_text()
    assert written.startswith("# The Two-Minute Inbox Rule")
    sid = next(line.split()[1] for line in result.stdout.splitlines() if line.startswith("session "))
    session = find_session(sid)
    assert session.status == "awaiting_review" and session.model == f"replay:{EXAMPLE_SESSION}"
    assert [(c.input["path"], c.is_error) for c in session.tool_calls] == [
        ("/posts/two-minute-inbox-rule.md", True), ("posts/two-minute-inbox-rule.md", False)]
    recorded, notes = read_events(EXAMPLE_SESSION)
    assert notes == []
    assert [e.content for e in session.events if isinstance(e, ModelReplyEvent)] == [
        e.content for e in recorded if isinstance(e, ModelReplyEvent)]
    approved = invoke("sessions", "resume", sid, "--approve").stdout
    # The approval completes the run, and its tool-errors channel captures the corrected write_file call.
    assert approved.startswith("Extracted 1 learning(s), 0 quarantined → ")
    assert approved.endswith(f"\nsession {sid} · completed · 5,964 tokens\n")


def test_a_replayed_run_resumed_with_a_comment_uses_the_next_recorded_reply(blog, tmp_path):
    recording = SessionLog.create(tmp_path / "rec", "01REC")
    recording.append(ModelReplyEvent(content=[TextBlock(text="Draft one")]))
    recording.append(ModelReplyEvent(content=[TextBlock(text="Draft two")]))
    sid = json.loads(invoke("run", str(blog), "--model", f"replay:{recording.path}", "--json").stdout)["session"]
    second = invoke("sessions", "resume", sid, "--comment", "Shorter, please")
    assert second.stdout.startswith("Draft two")
    third = invoke("sessions", "resume", sid, "--comment", "Shorter still", code=1)
    assert "ran out of model replies: the run asked for reply 3 but only 2 were recorded" in third.stderr
    # The revision that could not run is withdrawn: the second draft still awaits review (tests/test_revision_failure.py).
    assert find_session(sid).status == "awaiting_review" and find_session(sid).output.startswith("Draft two")


def test_a_killed_run_reads_as_crashed(tmp_path, data_dir):
    project = tmp_path / "slow"
    project.mkdir()
    agent = project / "slow.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-test\n---\n\n# Slow\n\nRun the slow command.\n")
    recording = SessionLog.create(tmp_path / "rec", "01SLOW")
    recording.append(ModelReplyEvent(content=[ToolUseBlock(
        id="c1", name="run_shell", input={"command": "echo $$ > shell.pid; exec sleep 30"})], stop_reason="tool_use"))
    code = "import sys; from agentuse.cli.app import main; sys.argv = ['agentuse', *sys.argv[1:]]; main()"
    child = subprocess.Popen([sys.executable, "-c", code, "run", str(agent), "--model", f"replay:{recording.path}"],
                             env={**os.environ, "AGENTUSE_DATA_DIR": str(data_dir)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shell_pid = project / "shell.pid"
    try:
        for _ in range(600):  # the tool call is logged before the shell starts; wait for the shell itself
            if shell_pid.exists() and shell_pid.read_text().strip():
                break
            time.sleep(0.05)
        else:
            pytest.fail("the run never reached its shell command")
    finally:
        child.kill()
        child.wait()
        if shell_pid.exists() and shell_pid.read_text().strip():
            try:
                os.kill(int(shell_pid.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
    logs = list(data_dir.glob("project/*/session/*.jsonl"))
    assert len(logs) == 1
    shown = invoke("sessions", "show", logs[0].stem)
    assert shown.stdout.splitlines()[0].endswith("crashed")
    assert "run_shell" in shown.stdout and "no result (interrupted)" in shown.stdout
    events, _ = read_events(logs[0])
    assert isinstance(events[0], RunStart) and events[-1].type == "tool_call"


@pytest.mark.parametrize("folder", ["tmp.0Tf3qLEfQb", "agentuse-demo-hfnx5f14/state"], ids=["mktemp", "demo"])
def test_the_capture_line_names_the_learnings_file_in_a_random_looking_state_dir(blog, tmp_path, monkeypatch, folder):
    """`AGENTUSE_DATA_DIR=$(mktemp -d)` (and `agentuse demo`'s own state dir) has a random-looking name: the
    folder the person chose is theirs, not a credential, so the line says where the learnings went."""
    from agentuse.core import store

    data = tmp_path / folder
    monkeypatch.setenv("AGENTUSE_DATA_DIR", str(data))
    result = invoke("run", str(blog), "Write this week's post", "--model", f"replay:{EXAMPLE_SESSION}")
    sid = next(line.split()[1] for line in result.stdout.splitlines() if line.startswith("session "))
    approved = invoke("sessions", "resume", sid, "--approve").stdout
    path = store.locate(blog).store_path
    assert str(path).startswith(str(data))
    assert approved.startswith(f"Extracted 1 learning(s), 0 quarantined → {path}\n"), approved
    assert f"→ {path}" in invoke("sessions", "show", sid).stdout
