"""A session log converted into the capture pipeline's `ToolTrace` (core never reads session logs).

The transcript is the run's evidence as the evaluator and the vet read it: the task, what the model
said, every tool call with its result or error, reviewer comments, and the output. Long tool outputs are
clipped per call so one big file read cannot crowd the rest of the run out of the bounded trace.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentuse.core.file_access import check_regular
from agentuse.core.clip import clip
from agentuse.core.terminal_text import shell_word
from agentuse.core.trace import ToolTrace, TraceCall, canonical_json, indented
from agentuse.runtime.events import (
    ApprovalDecision,
    ApprovalRequest,
    Event,
    ModelReplyEvent,
    RunEnd,
    RunStart,
    ToolCallEvent,
    ToolResultEvent,
)
from agentuse.runtime.messages import TextBlock
from agentuse.runtime.session import SessionError, find_log, read_events, sessions_roots

OUTPUT_CHARS = 1_500  # per tool result in the transcript


def resolve_session(ref: str, data_dir: Path) -> Path:
    """A session log path from an id, a unique id prefix, or a path to a `.jsonl` file."""
    candidate = Path(ref).expanduser()
    if candidate.suffix == ".jsonl" or candidate.exists():
        if not check_regular(candidate, "session log"):  # a FIFO or device is refused, never opened
            raise SessionError(f"session log {candidate} does not exist")
        return candidate.absolute()
    return find_log(ref, sessions_roots(data_dir))


def agent_session(ref: str, agent: Path, data_dir: Path) -> Path:
    """`resolve_session` for learning about one agent: a log another agent file recorded is refused, since
    its trace is evidence about that agent's instructions, never this one's. "Another" is a file that is
    there and is not this one: a recording made elsewhere (the bundled example, a clone at another path) or
    by this agent before it was moved names a file that is not here, and a log without its run_start names
    none; those are taken as given."""
    path = resolve_session(ref, data_dir)
    start = next((e for e in read_events(path)[0] if isinstance(e, RunStart)), None)
    if start is not None and _another_file(Path(start.agent_path), agent):
        raise SessionError(f"session {path.stem} is a run of {start.agent_path}, not of {agent}: "
                           f"learn from it for its own agent (agentuse learnings capture {shell_word(start.agent_path)} "
                           f"--session {path.stem})")
    return path


def _another_file(recorded: Path, agent: Path) -> bool:
    try:
        return recorded.is_file() and not os.path.samefile(recorded, agent)
    except OSError:  # this agent file is not there: the agent's own reader says so
        return False


def trace_from_events(events: list[Event], *, session: str | None = None) -> ToolTrace:
    start = next((e for e in events if isinstance(e, RunStart)), None)
    calls: list[TraceCall] = []
    open_calls: dict[str, TraceCall] = {}  # by id, the latest call still waiting for its result
    lines: list[str] = []
    output = ""
    if start is not None:
        lines.append(f"TASK:\n{start.prompt}")
    for event in events:
        if isinstance(event, ModelReplyEvent):
            said = "\n".join(b.text for b in event.content if isinstance(b, TextBlock)).strip()
            if said:
                lines.append(f"ASSISTANT:\n{said}")
        elif isinstance(event, ToolCallEvent):
            # Position, not the id alone, tells calls apart: a server may give every turn's call the same id.
            calls.append(call := TraceCall(call_id=event.call_id, tool=event.name, input=event.input))
            open_calls[event.call_id] = call
            lines.append(f"TOOL CALL {event.name} {canonical_json(event.input)}")
        elif isinstance(event, ToolResultEvent) and event.cut_off:
            if (cut := open_calls.pop(event.call_id, None)) is not None:
                calls = [c for c in calls if c is not cut]  # never run: the model's reply was cut off, no tool failed
            lines.append(f"TOOL CALL NOT RUN {event.name}: the reply was cut off at the output limit")
        elif isinstance(event, ToolResultEvent):
            call = open_calls.pop(event.call_id, None)
            if call is None:  # a result whose call line was lost (a torn line, a hand-edited log)
                calls.append(call := TraceCall(call_id=event.call_id, tool=event.name))
            call.ok = not event.is_error
            call.error, call.output = event.error, event.output
            if event.is_error:
                lines.append(f"TOOL ERROR {event.name}: {clip(event.error or '', OUTPUT_CHARS)}")
            else:
                lines.append(f"TOOL RESULT {event.name}: {clip(event.output, OUTPUT_CHARS)}")
        elif isinstance(event, ApprovalRequest):
            output = event.output
            lines.append(f"SUBMITTED FOR REVIEW:\n{event.output}")
        elif isinstance(event, ApprovalDecision):
            said = " ".join(x for x in (event.comment, event.remember) if x)
            lines.append(f"REVIEWER ({event.decision}){': ' + said if said else ''}")
        elif isinstance(event, RunEnd):
            if event.output is not None:
                output = event.output
            lines.append(f"RUN ENDED {event.status}" + (f": {event.error}" if event.error else ""))
    if output:
        lines.append(f"FINAL OUTPUT:\n{output}")
    return ToolTrace(
        session=session or (start.session_id if start else None),
        agent_key=start.agent_key if start else None,
        prompt=start.prompt if start else "",
        output=output,
        calls=calls,
        transcript="\n".join(indented(line) for line in lines),  # the run's text cannot start a line
    )


def trace_from_session(path: Path) -> ToolTrace:
    """Read a session log (a torn last line is skipped, as everywhere) and convert it. A log with no
    readable event is an error: learning nothing from it would look like a run with nothing to learn."""
    events, notes = read_events(path)
    if not events:
        unread = f" ({len(notes)} unreadable line(s))" if notes else ""
        raise SessionError(f"session log {path} could not be read: it holds no session events{unread}")
    return trace_from_events(events, session=path.stem)
