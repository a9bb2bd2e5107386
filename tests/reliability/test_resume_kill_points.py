"""`sessions resume --approve [--remember "..."]` killed at EVERY file-system operation, then run again.

A resume writes the store (the `ok:` credit, the note) and the session log (the decision, the run's end,
the note's result). Whatever operation the kill lands before, running the same resume again must finish
what was left: the session completed with one decision, every rule in force credited exactly once (plain
approval) and the note saved exactly once (with --remember).
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from agentuse.core import store
from agentuse.core.store_format import parse
from agentuse.runtime.events import ApprovalDecision, RunEnd
from agentuse.runtime.runner import start_run
from agentuse.runtime.summary import summarize

from .stores import AGENT_BODY

REPLIES = Path(__file__).resolve().parents[2] / "examples" / "sessions" / "blog-writer-tool-error.jsonl"
AGENT = f"---\nmodel: anthropic:claude-sonnet-5\napproval: true\nlearning:\n  apply: true\n---\n\n{AGENT_BODY}"
NOTE = "Always name the source of every statistic in the post"


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


@pytest.fixture
def gate(project):
    """A run of an agent with rules in force, stopped at its approval gate; no capture channel, so the
    resume's own writes are all there is to kill."""
    project.agent.write_text(AGENT, encoding="utf-8")
    project.seed(6)
    result = start_run(project.agent, model=f"replay:{REPLIES}")
    assert result.status == "awaiting_review"
    log = Path(result.session_file)
    saved = {log: log.read_bytes(), project.location.store_path: project.location.store_path.read_bytes()}
    injected = summarize(log).injected
    assert injected, "the run had rules in force"

    def put_back() -> None:
        for path, data in saved.items():
            path.write_bytes(data)
        project.location.archive_path.unlink(missing_ok=True)
        for temp in project.location.store_path.parent.glob(".*.tmp"):
            temp.unlink()  # a killed writer's temp file

    return project.location, result.session_id, log, injected, put_back


def _ok(location: store.AgentLocation) -> dict[str, int]:
    return {rule.id: rule.ok for rule in parse(location.store_path.read_text()).learnings}


def _notes(location: store.AgentLocation, session: str) -> list[str]:
    return [rule.id for rule in parse(location.store_path.read_text()).learnings
            if rule.is_human and rule.sess == session]


def _trials(fork_server, gate, remember: str | None) -> tuple[list[str], int]:
    location, session, log, injected, put_back = gate
    config = {"session": session, **({"remember": remember} if remember else {})}
    ok_before = _ok(location)
    for _ in range(2):  # the first run creates lock files the later ones find: count from the second
        put_back()
        calibration = fork_server.ask({"cmd": "trial", "scenario": "resume", "config": config})
        assert calibration["exit"] == 0, calibration
    trace = calibration["trace"]
    problems = []
    for k in range(len(trace)):
        put_back()
        killed = fork_server.ask({"cmd": "trial", "scenario": "resume", "config": config, "kill_at": k})
        assert killed["signal"] == signal.SIGKILL, (k, trace[k], killed)
        trial = f"killed before operation {k} of {len(trace)} ({trace[k].rsplit('/', 1)[-1]})"
        again = fork_server.ask({"cmd": "trial", "scenario": "resume", "config": config})
        if again["exit"] != 0 and "only a session awaiting review" not in again.get("error", ""):
            problems.append(f"{trial}: the same resume run again failed: {again.get('error')}")
        session_now = summarize(log)
        decisions = [e for e in session_now.events if isinstance(e, ApprovalDecision)]
        ends = [e.status for e in session_now.events if isinstance(e, RunEnd)]
        if session_now.status != "completed" or len(decisions) != 1 or ends[1:] != ["completed"]:
            problems.append(f"{trial}: {session_now.status}, {len(decisions)} decision(s), run ends {ends}")
        ok_now = _ok(location)
        credited = {rid: ok_now[rid] - ok_before[rid] for rid in injected if rid in ok_now}
        expected = 0 if remember else 1
        if set(credited.values()) != {expected}:
            problems.append(f"{trial}: ok: credited {credited} (expected +{expected} each)")
        if remember:
            notes = _notes(location, session)
            if len(notes) != 1:
                problems.append(f"{trial}: the note is saved {len(notes)} time(s)")
            if not session_now.learning:
                problems.append(f"{trial}: no result line for the note in the session log")
    return problems, len(trace)


def test_an_approval_killed_at_any_operation_and_run_again_credits_each_rule_once(fork_server, gate):
    problems, points = _trials(fork_server, gate, remember=None)
    assert not problems, f"{len(problems)} problems over {points} kill points:\n" + "\n".join(problems)


def test_an_approval_with_a_note_killed_at_any_operation_and_run_again_saves_the_note_once(fork_server, gate):
    problems, points = _trials(fork_server, gate, remember=NOTE)
    assert not problems, f"{len(problems)} problems over {points} kill points:\n" + "\n".join(problems)
