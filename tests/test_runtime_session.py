"""Session ids, the JSONL log and its summary: durable, append-only, forgiving of crash damage."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentuse.runtime.events import (
    ApprovalDecision,
    ApprovalRequest,
    LearningResult,
    ModelReplyEvent,
    RunEnd,
    RunStart,
    ToolCallEvent,
    ToolResultEvent,
)
from agentuse.core.session_ids import ID_LENGTH, is_session_id, new_session_id, timestamp_ms
from agentuse.runtime.messages import TextBlock, Usage
from agentuse.runtime.session import SessionError, SessionLog, find_log, list_logs, read_events
from agentuse.runtime.summary import summarize


def fixed_clock():
    return "2026-01-27T10:00:00.000Z"


def start_event(pid: int, **kw) -> RunStart:
    fields = dict(
        session_id="S",
        agent_key="blog.agentuse",
        agent_path="/p/blog.agentuse",
        project_root="/p",
        ih="9c4d2ba17e08",
        model="replay:x.jsonl",
        prompt="write",
        system="# Blog",
        injected=["a1b2c3d4"],
        pid=pid,
    )
    fields.update(kw)
    return RunStart(**fields)


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


# --- ids --------------------------------------------------------------------------------------------


def test_ids_are_ulids_sorted_by_their_clock():
    ticks = iter([1_700_000_000.000, 1_700_000_000.001, 1_800_000_000.0])
    ids = [new_session_id(clock=lambda: next(ticks)) for _ in range(3)]
    assert all(len(i) == ID_LENGTH and is_session_id(i) for i in ids)
    assert ids == sorted(ids)
    assert timestamp_ms(ids[0]) == 1_700_000_000_000
    assert new_session_id(clock=lambda: 0.0, randbytes=lambda n: b"\0" * n) == "0" * ID_LENGTH
    assert new_session_id(clock=lambda: 0.032, randbytes=lambda n: b"\xff" * n) == "0" * 8 + "10" + "Z" * 16
    # Deterministic with an injected clock and random source.
    same = [new_session_id(clock=lambda: 5.0, randbytes=lambda n: bytes(range(n))) for _ in range(2)]
    assert same[0] == same[1]


def test_ids_start_with_01_in_this_century():
    assert new_session_id(clock=lambda: 1_769_000_000.0).startswith("01K")


# --- the log ----------------------------------------------------------------------------------------


def test_every_event_kind_round_trips(tmp_path):
    log = SessionLog.create(tmp_path, "01TEST", clock=fixed_clock)
    written = [
        start_event(1),
        ModelReplyEvent(content=[TextBlock(text="hi")], stop_reason="end_turn", usage=Usage(input_tokens=3, output_tokens=2)),
        ToolCallEvent(call_id="c1", name="read_file", input={"path": "a"}),
        ToolResultEvent(call_id="c1", name="read_file", error="no such file: a", is_error=True),
        ApprovalRequest(output="draft"),
        ApprovalDecision(decision="revise", comment="shorter", remember="Keep posts short.", pid=1),
        LearningResult(line="Extracted 0 learning(s)"),
        RunEnd(status="completed", output="final"),
    ]
    for event in written:
        log.append(event)
    events, notes = read_events(log.path)
    assert notes == []
    assert [e.type for e in events] == [e.type for e in written]
    assert all(e.at == fixed_clock() for e in events)
    assert all(json.loads(line)["type"] for line in log.path.read_text().splitlines())


def test_an_id_is_never_reused(tmp_path):
    SessionLog.create(tmp_path, "01SAME")
    with pytest.raises(FileExistsError):
        SessionLog.create(tmp_path, "01SAME")


def test_summary_counts_tokens_tool_calls_and_errors(tmp_path):
    log = SessionLog.create(tmp_path, "01SUM")
    log.append(start_event(1))
    log.append(ModelReplyEvent(usage=Usage(input_tokens=10, output_tokens=5)))
    log.append(ToolCallEvent(call_id="c1", name="write_file", input={"path": "x/y"}))
    log.append(ToolResultEvent(call_id="c1", name="write_file", error="folder does not exist: x", is_error=True))
    log.append(ToolCallEvent(call_id="c2", name="write_file", input={"path": "y"}))
    log.append(ToolResultEvent(call_id="c2", name="write_file", output="wrote 3 bytes to y"))
    log.append(ModelReplyEvent(usage=Usage(input_tokens=20, output_tokens=7)))
    log.append(RunEnd(status="completed", output="done"))
    session = summarize(log.path)
    assert session.status == "completed"
    assert session.tokens == Usage(input_tokens=30, output_tokens=12)
    assert [(c.name, c.is_error) for c in session.tool_calls] == [("write_file", True), ("write_file", False)]
    assert session.errors == ["write_file: folder does not exist: x"]
    assert session.output == "done"
    assert session.injected == ["a1b2c3d4"]
    assert session.ended is not None


def test_a_log_without_run_end_is_crashed_when_its_process_is_gone(tmp_path):
    log = SessionLog.create(tmp_path, "01CRASH")
    log.append(start_event(dead_pid()))
    log.append(ToolCallEvent(call_id="c1", name="run_shell", input={"command": "sleep 100"}))
    session = summarize(log.path)
    assert session.status == "crashed"
    assert session.tool_calls[0].is_error is None  # the call never returned
    assert session.ended is None


def test_a_log_without_run_end_is_running_while_its_process_lives(tmp_path):
    import os

    log = SessionLog.create(tmp_path, "01LIVE")
    log.append(start_event(os.getpid()))
    assert summarize(log.path).status == "running"


def test_a_learning_result_after_run_end_keeps_the_ending(tmp_path):
    log = SessionLog.create(tmp_path, "01LR")
    log.append(start_event(dead_pid()))
    log.append(RunEnd(status="completed", output="x"))
    log.append(LearningResult(line="Extracted 1 learning(s) -> f.md"))
    session = summarize(log.path)
    assert session.status == "completed"
    assert session.learning == ["Extracted 1 learning(s) -> f.md"]


def test_a_torn_last_line_is_ignored_with_a_note(tmp_path):
    log = SessionLog.create(tmp_path, "01TORN")
    log.append(start_event(dead_pid()))
    log.append(ModelReplyEvent(usage=Usage(input_tokens=4)))
    with open(log.path, "a") as handle:
        handle.write('{"type": "tool_call", "call_id": "c1", "na')  # the process died mid-write
    session = summarize(log.path)
    assert session.status == "crashed"
    assert session.tokens.input_tokens == 4
    assert session.notes == ["01TORN.jsonl:3: torn last line (the run was interrupted while writing) ignored"]
    # Appending after the damage starts a fresh line: the new event stays readable.
    log.append(RunEnd(status="failed", error="x"))
    events, notes = read_events(log.path)
    assert events[-1].type == "run_end"
    assert notes == ["01TORN.jsonl:3: unreadable line ignored"]


def test_a_line_that_is_not_utf8_is_named_as_such_not_as_a_torn_line(tmp_path):
    log = SessionLog.create(tmp_path, "01LATIN")
    log.append(start_event(dead_pid()))
    with open(log.path, "ab") as handle:
        handle.write('{"type": "run_end", "status": "completed", "output": "caf\u00e9"}\n'.encode("latin-1"))
    assert read_events(log.path)[1] == ["01LATIN.jsonl:2: not UTF-8 text (byte 58 is 0xe9): line ignored"]
    # A multi-byte character cut off by a crash is still a torn last line.
    torn = SessionLog.create(tmp_path, "01CUT")
    torn.append(start_event(dead_pid()))
    with open(torn.path, "ab") as handle:
        handle.write('{"type": "run_end", "output": "caf\u00e9'.encode("utf-8")[:-1])
    assert read_events(torn.path)[1] == ["01CUT.jsonl:2: torn last line (the run was interrupted while writing) ignored"]


def test_find_by_unique_prefix(tmp_path):
    a, b = tmp_path / "p1" / "session", tmp_path / "p2" / "session"
    SessionLog.create(a, "01AAAA1")
    SessionLog.create(a, "01AAAB2")
    SessionLog.create(b, "01BBBB3")
    roots = [a, b]
    assert [p.stem for p in list_logs(roots)] == ["01BBBB3", "01AAAB2", "01AAAA1"]
    assert find_log("01b", roots).stem == "01BBBB3"
    assert find_log("01AAAB", roots).stem == "01AAAB2"
    with pytest.raises(SessionError, match="matches 2 sessions"):
        find_log("01AAA", roots)
    with pytest.raises(SessionError, match="no session matches '01C'"):
        find_log("01C", roots)
