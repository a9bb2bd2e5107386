"""Session logs into the effectiveness index (core/effectiveness.py): one log when its run starts and at
the end of each stretch of work, or every log of an agent on `--rebuild` (and whenever the index cannot be
used). Core never reads session logs, so the digest is made here."""

from __future__ import annotations

from pathlib import Path

from agentuse.core import effectiveness, store
from agentuse.core.errors import AgentuseError
from agentuse.core.helper.overlap import about_the_same
from agentuse.core.inject import injected_texts
from agentuse.core.tool_errors import signature
from agentuse.runtime.events import (
    ApprovalDecision,
    ApprovalRequest,
    Event,
    RoundStart,
    RunEnd,
    RunStart,
    ToolResultEvent,
)
from agentuse.runtime.session import read_events


def digest(events: list[Event]) -> effectiveness.SessionDigest | None:
    """What a session says about its rules; None for a log with no run_start (nothing was in force)."""
    rounds: list[effectiveness.RoundDigest] = []
    texts: dict[str, str] = {}  # the rules of the round a comment answers, as its prompt carried them
    reviewed: dict[str, str] = {}  # ... of the round whose output is under review: a failed revision's round
    # answers nothing, so the next comment answers this one (its rules and tool failures still count as in force)
    decisions: list[ApprovalDecision] = []
    about: set[str] = set()
    gated, end = False, None
    for event in events:
        if isinstance(event, (RunStart, RoundStart)) and (rounds or isinstance(event, RunStart)):
            gated = gated or (isinstance(event, RunStart) and event.approval)
            rounds.append(effectiveness.RoundDigest(injected=list(event.injected)))
            texts = injected_texts(event.system, list(event.injected))
        elif isinstance(event, ToolResultEvent) and event.is_error and rounds:
            sig = signature(event.text)
            if sig and (event.name, sig) not in rounds[-1].failures:
                rounds[-1].failures.append((event.name, sig))
        elif isinstance(event, ApprovalDecision):
            decisions.append(event)
            said = " ".join(t for t in (event.comment, event.remember) if t and t.strip())
            about.update(rule_id for rule_id, text in texts.items() if said and about_the_same(said, text))
        elif isinstance(event, ApprovalRequest):
            reviewed = texts
        elif isinstance(event, RunEnd):
            end = event
            if event.revision_failed:
                texts = reviewed
    if not rounds:
        return None
    return effectiveness.SessionDigest(outcome=_outcome(gated, decisions, end), rounds=rounds,
                                       about=sorted(about), open=end is None or end.status == "awaiting_review")


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


def count_session(log_path: Path) -> str | None:
    """A run's start and the end of each stretch of its work: this session into its agent's index, reading
    this one log and the index only. The index is never the only copy, so a failure here never fails the
    run. Returns the one line to show when the index could not be used and was rebuilt from the logs."""
    try:
        events, _ = read_events(log_path)
        key, found = _agent_of(events), digest(events)
        if key is None or found is None:
            return None
        project_dir = log_path.parent.parent  # project/<hash>/session/<id>.jsonl
        path = effectiveness.index_path(project_dir, key)
        fresh = not path.exists()  # lost, or never written: the logs before this one count too
        problem = None if fresh else effectiveness.record(path, key, log_path.stem, found)
        if fresh or problem:
            index = rebuild(project_dir, key)
            return None if fresh else rebuilt_line(key, problem, index)
    except (AgentuseError, OSError, ValueError):
        return None
    return None


def rebuilt_line(agent_key: str, problem: str | None, index: effectiveness.Index) -> str:
    return (f"the effectiveness index of {agent_key} {problem}: recounted it from the session logs "
            f"({effectiveness.runs_counted(index)} run(s))")


def recount(location: store.AgentLocation, problem: str) -> tuple[effectiveness.Index, str]:
    """An index that could not be used, rebuilt from the logs, and the one line that says so."""
    index = rebuild(location.project_dir, location.key)
    return index, rebuilt_line(location.key, problem, index)


def rebuild(project_dir: Path, agent_key: str) -> effectiveness.Index:
    """Every session log of this agent, counted afresh: the index as the logs say it now. Read under the
    index's lock, so a session that ends meanwhile is counted after the rebuild, never lost under it."""
    path = effectiveness.index_path(project_dir, agent_key)
    with store.lock_for(path):
        digests: dict[str, effectiveness.SessionDigest] = {}
        for log_path in sorted((project_dir / "session").glob("*.jsonl")):
            try:
                events, _ = read_events(log_path)
            except AgentuseError:  # a folder in a log's place, no permission: nothing here can count it, and
                continue           # `sessions list` names it
            if _agent_of(events) == agent_key and (found := digest(events)) is not None:
                digests[log_path.stem] = found
        return effectiveness.replace_all(path, agent_key, digests)
