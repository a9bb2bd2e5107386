"""Session logs into the effectiveness index (core/effectiveness.py): one log at the end of its run, or
every log of an agent on `--rebuild`. Core never reads session logs, so the digest is made here."""

from __future__ import annotations

from pathlib import Path

from agentuse.core import effectiveness
from agentuse.core.errors import AgentuseError
from agentuse.core.tool_errors import signature
from agentuse.runtime.events import ApprovalDecision, Event, RoundStart, RunEnd, RunStart, ToolResultEvent
from agentuse.runtime.session import read_events


def digest(events: list[Event]) -> effectiveness.SessionDigest | None:
    """What a session says about its rules; None for a log with no run_start (nothing was in force)."""
    rounds: list[effectiveness.RoundDigest] = []
    decisions: list[ApprovalDecision] = []
    gated, end = False, None
    for event in events:
        if isinstance(event, RunStart):
            gated = event.approval
            rounds.append(effectiveness.RoundDigest(injected=list(event.injected)))
        elif isinstance(event, RoundStart) and rounds:
            rounds.append(effectiveness.RoundDigest(injected=list(event.injected)))
        elif isinstance(event, ToolResultEvent) and event.is_error and rounds:
            sig = signature(event.text)
            if sig and (event.name, sig) not in rounds[-1].failures:
                rounds[-1].failures.append((event.name, sig))
        elif isinstance(event, ApprovalDecision):
            decisions.append(event)
        elif isinstance(event, RunEnd):
            end = event
    if not rounds:
        return None
    return effectiveness.SessionDigest(outcome=_outcome(gated, decisions, end), rounds=rounds)


def _outcome(gated: bool, decisions: list[ApprovalDecision], end: RunEnd | None) -> effectiveness.Outcome:
    if decisions and decisions[-1].decision == "reject":
        return "rejected"
    if any(d.has_feedback for d in decisions):
        return "commented"
    if end is None or end.status == "failed":
        return "failed" if end is not None else "pending"
    if end.status == "awaiting_review":
        return "pending"
    if decisions and decisions[-1].decision == "approve":
        return "approved"
    return "no_gate" if not gated else "pending"


def _agent_of(events: list[Event]) -> str | None:
    start = next((e for e in events if isinstance(e, RunStart)), None)
    return start.agent_key if start else None


def count_session(log_path: Path) -> None:
    """The end of a run: replace this session's digest in its agent's index. Reads this one log only. The
    index is never the only copy, so a failure here never fails the run: `--rebuild` recounts."""
    try:
        events, _ = read_events(log_path)
        key, found = _agent_of(events), digest(events)
        if key is None or found is None:
            return
        project_dir = log_path.parent.parent  # project/<hash>/session/<id>.jsonl
        effectiveness.record(effectiveness.index_path(project_dir, key), key, log_path.stem, found)
    except (AgentuseError, OSError, ValueError):
        return


def rebuild(project_dir: Path, agent_key: str) -> effectiveness.Index:
    """Every session log of this agent, counted afresh: the index as the logs say it now."""
    digests: dict[str, effectiveness.SessionDigest] = {}
    for log_path in sorted((project_dir / "session").glob("*.jsonl")):
        events, _ = read_events(log_path)
        if _agent_of(events) == agent_key and (found := digest(events)) is not None:
            digests[log_path.stem] = found
    return effectiveness.replace_all(effectiveness.index_path(project_dir, agent_key), agent_key, digests)
