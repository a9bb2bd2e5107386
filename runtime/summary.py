"""A session log read back as one pydantic summary: what `sessions list/show` and `--json` print.

Status comes from the log alone: the last `run_end` when nothing follows it; otherwise the run is still
going if the process that last wrote to it is alive, and `crashed` if not (killed, power loss).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agentuse.core.errors import AgentuseError
from agentuse.runtime.events import (
    ApprovalCredit,
    NoteRepeat,
    ApprovalDecision,
    ApprovalRequest,
    Event,
    LearningResult,
    ModelReplyEvent,
    RunEnd,
    RunStart,
    ToolCallEvent,
    ToolResultEvent,
    current_round,
)
from agentuse.runtime.messages import Usage
from agentuse.runtime.session import pid_alive, read_events
from agentuse.core.model_defaults import empty_list

SessionStatus = Literal["completed", "awaiting_review", "rejected", "failed", "crashed", "running"]


class ToolCallSummary(BaseModel):
    call_id: str
    name: str
    input: Any = None
    is_error: bool | None = None  # None: no result recorded (the run stopped mid-call)
    error: str | None = None
    output: str | None = None


class Session(BaseModel):
    id: str
    path: str
    status: SessionStatus
    agent_key: str | None = None
    agent_path: str | None = None
    model: str | None = None
    prompt: str | None = None
    started: str | None = None
    ended: str | None = None
    output: str | None = Field(None, description="the final output, or the output awaiting review")
    tokens: Usage = Field(default_factory=Usage)
    model_calls: int = 0
    tool_calls: list[ToolCallSummary] = Field(default_factory=empty_list)
    errors: list[str] = Field(default_factory=empty_list, description="tool errors and the run's own failure")
    injected: list[str] = Field(default_factory=empty_list, description="the rules in force: the latest round's")
    decisions: list[ApprovalDecision] = Field(default_factory=empty_list)
    learning: list[str] = Field(default_factory=empty_list, description="capture/remember result lines")
    notes: list[str] = Field(default_factory=empty_list, description="problems reading the log itself")
    events: list[Event] = Field(default_factory=empty_list, exclude=True)

    @property
    def run_start(self) -> RunStart | None:
        return next((e for e in self.events if isinstance(e, RunStart)), None)

    @property
    def tool_errors(self) -> int:
        return sum(1 for call in self.tool_calls if call.is_error)

    @property
    def had_feedback(self) -> bool:
        return any(decision.has_feedback for decision in self.decisions)


def _status(events: list[Event]) -> SessionStatus:
    # A learning result is written after the run ended (capture runs post-run): it keeps that ending, as a
    # note's journaled repeat does. A credit journaled by a resume killed before its decision leaves the
    # gate unanswered: still awaiting.
    last = next((e for e in reversed(events) if not isinstance(e, (LearningResult, ApprovalCredit, NoteRepeat))),
                None)
    if isinstance(last, RunEnd):
        return last.status
    if isinstance(last, ApprovalRequest):  # the work is done and put to review; only its run_end is missing
        return "awaiting_review"
    writers = [(e.pid, e.pid_started) for e in events if isinstance(e, (RunStart, ApprovalDecision))]
    if writers and pid_alive(*writers[-1]):
        return "running"
    return "crashed"


def summarize(path: Path) -> Session:
    events, notes = read_events(path)
    start = next((e for e in events if isinstance(e, RunStart)), None)
    if start is None:
        notes.append(f"{path.name}: no run_start event")
    calls: list[ToolCallSummary] = []
    waiting: dict[str, ToolCallSummary] = {}  # by id, the latest call without its result yet (as the trace pairs them)
    tokens = Usage()
    errors: list[str] = []
    output: str | None = None
    ended: str | None = None
    for event in events:
        if isinstance(event, ModelReplyEvent):
            tokens = tokens + event.usage
        elif isinstance(event, ToolCallEvent):
            calls.append(call := ToolCallSummary(call_id=event.call_id, name=event.name, input=event.input))
            waiting[event.call_id] = call
        elif isinstance(event, ToolResultEvent):
            if (call := waiting.pop(event.call_id, None)) is None:
                calls.append(call := ToolCallSummary(call_id=event.call_id, name=event.name))
            call.is_error, call.error, call.output = event.is_error, event.error, event.output
            if event.is_error:
                errors.append(f"{event.name}: {event.error}")
        elif isinstance(event, ApprovalRequest):
            output = event.output
        elif isinstance(event, RunEnd):
            output = event.output if event.output is not None else output
            ended = event.at
            if event.error:
                errors.append(event.error)
    status = _status(events)
    return Session(
        id=path.stem,
        path=str(path),
        status=status,
        agent_key=start.agent_key if start else None,
        agent_path=start.agent_path if start else None,
        model=start.model if start else None,
        prompt=start.prompt if start else None,
        started=start.at if start else None,
        ended=ended if status in ("completed", "rejected", "failed") else None,
        output=output,
        tokens=tokens,
        model_calls=sum(1 for e in events if isinstance(e, ModelReplyEvent)),
        tool_calls=calls,
        errors=errors,
        injected=list(current.injected) if (current := current_round(events)) else [],
        decisions=[e for e in events if isinstance(e, ApprovalDecision)],
        learning=[e.line for e in events if isinstance(e, LearningResult)],
        notes=notes,
        events=events,
    )


def summaries(logs: Iterable[Path], unread: list[str]) -> Iterator[Session]:
    """Each log summarized, lazily (a listing stops at its limit). A log that cannot be read at all (a
    folder in its place, no permission) is named in `unread`, and the rest are still listed."""
    for path in logs:
        try:
            yield summarize(path)
        except AgentuseError as problem:
            unread.append(str(problem))


def stretch_learning_lines(session_file: Path) -> list[str]:
    """Learning results written since this stretch of the run began (its start, or the last decision):
    what that stretch produced, as `run`, `sessions resume` and the serve review form show it."""
    lines: list[str] = []
    for event in read_events(session_file)[0]:
        if isinstance(event, (RunStart, ApprovalDecision)):
            lines = []
        elif isinstance(event, LearningResult):
            lines.append(event.line)
    return lines
