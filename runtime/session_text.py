"""A session summary as text or JSON, for `agentuse sessions show` (and any other surface that prints one).

What is shown is masked (core/redact.py): a prompt, a tool call or an error that held a credential prints
`***` in its place. The session log itself stays the run's record, as written.
"""

from __future__ import annotations

import json
from typing import Any

from agentuse.core.redact import mask_known_value, redact_text, redact_value
from agentuse.runtime.events import (
    ApprovalDecision,
    ApprovalRequest,
    Event,
    ApprovalCredit,
    LearningResult,
    NoteRepeat,
    ModelReplyEvent,
    ModelRequestEvent,
    RunEnd,
    RoundStart,
    RunStart,
    ToolCallEvent,
    ToolResultEvent,
)
from agentuse.runtime.summary import Session

PREVIEW = 100


def _short(value: Any, limit: int = PREVIEW) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)  # model order: path first
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def event_line(event: Event) -> str:
    if isinstance(event, RunStart):
        injected = f", {len(event.injected)} learning(s) injected" if event.injected else ""
        return f"run_start          {event.model}{injected}"
    if isinstance(event, RoundStart):
        return f"round_start        round {event.round}, {len(event.injected)} learning(s) injected"
    if isinstance(event, ModelRequestEvent):
        return f"model_request      turn {event.turn}, {event.messages} message(s)"
    if isinstance(event, ModelReplyEvent):
        tools = [b.name for b in event.content if b.type == "tool_use"]
        text = " ".join(b.text for b in event.content if b.type == "text")
        what = f"tool_use: {', '.join(tools)}" if tools else _short(text, 60)
        usage = f"{event.usage.input_tokens} in / {event.usage.output_tokens} out"
        return f"model_reply        {event.stop_reason or '-'} ({usage}) {what}".rstrip()
    if isinstance(event, ToolCallEvent):
        return f"tool_call          {event.name} {_short(event.input)}"
    if isinstance(event, ToolResultEvent):
        shown = f"ERROR {_short(event.error or '')}" if event.is_error else _short(event.output or "(no output)")
        return f"tool_result        {event.name}: {shown}"
    if isinstance(event, ApprovalRequest):
        return f"approval_request   round {event.round}"
    if isinstance(event, ApprovalDecision):
        line = f"approval_decision  {event.decision}"
        if event.comment:
            line += f": {_short(event.comment)!r}"
        if event.remember:
            line += f" [remember: {_short(event.remember)!r}]"
        return line
    if isinstance(event, ApprovalCredit):
        return f"approval_credit    round {event.round}: ok +1 on {len(event.ok_before)} rule(s)"
    if isinstance(event, NoteRepeat):
        return f"note_repeat        re:{event.re} on id:{event.rule}"
    if isinstance(event, LearningResult):
        return f"learning_result    {event.line}"
    if isinstance(event, RunEnd):
        return f"run_end            {event.status}" + (f": {event.error}" if event.error else "")
    return event.type  # pragma: no cover - every kind is handled above


# The log's own fields, which no run text reaches: shown as written, so no path or id is ever mistaken
# for a token (a tool call's `{"path": ...}` is under `input`).
_OWN_FIELDS = frozenset({"id", "session_id", "call_id", "path", "agent_key", "agent_path", "project_root",
                         "model", "ih", "status", "type", "at", "started", "ended"})


def _masked(value: Any, found: set[str]) -> Any:
    """Every string credential-free; a tool call's `input` also by its keys' names (`{"password": ...}`),
    which the log's own keys (`session_id`, `tokens`) are not judged by."""
    if isinstance(value, dict):
        return {k: v if k in _OWN_FIELDS else redact_value(v, found) if k == "input" else _masked(v, found)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, found) for v in value]
    return redact_text(value, found) if isinstance(value, str) else value


def session_json(session: Session) -> dict[str, Any]:
    """The session with its events, masked with one found set: an error that echoes the password a command
    named is masked too."""
    payload = session.model_dump(mode="json")
    payload["events"] = [event.model_dump(mode="json") for event in session.events]
    found: set[str] = set()
    return mask_known_value(_masked(payload, found), found)


def masked(session: Session) -> Session:
    return Session.model_validate(session_json(session))


def render_session(session: Session) -> str:
    session = masked(session)
    lines = [f"session  {session.id}  {session.status.replace('_', ' ')}"]
    lines.append(f"agent    {session.agent_key or '?'}" + (f"  ({session.agent_path})" if session.agent_path else ""))
    lines.append(f"model    {session.model or '?'}")
    lines.append(f"started  {session.started or '?'}" + (f"  ended {session.ended}" if session.ended else ""))
    t = session.tokens
    lines.append(f"tokens   {t.input_tokens:,} in / {t.output_tokens:,} out ({t.total:,}) over {session.model_calls} model call(s)")
    if session.injected:
        lines.append(f"injected {', '.join(session.injected)}")
    if session.prompt:
        lines.append(f"prompt   {_short(session.prompt)}")
    lines += ["", "events"]
    lines += [f"  {(e.at or '')[11:23]:<12}  {event_line(e)}" for e in session.events]
    if session.tool_calls:
        lines += ["", f"tool calls ({len(session.tool_calls)}, {session.tool_errors} failed)"]
        for call in session.tool_calls:
            if call.is_error is None:
                outcome = "no result (interrupted)"
            else:
                outcome = f"error: {_short(call.error or '')}" if call.is_error else "ok"
            lines.append(f"  {call.name} {_short(call.input, 60)} -> {outcome}")
    for line in session.learning:
        lines += ["", f"learning: {line}"]
    if session.output:
        label = "output awaiting review" if session.status == "awaiting_review" else "output"
        lines += ["", f"{label}:", *(f"  {line}" for line in session.output.splitlines())]
    if session.status == "awaiting_review":
        lines += ["", f'resume:  agentuse sessions resume {session.id} --approve | --comment "..." | --reject [--remember "..."]']
    for note in session.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)
