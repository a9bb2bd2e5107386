"""A session read as a review (GitHub's pull-request review is the model): the rounds with the rules each
was given, the output each round submitted, every decision with its comment and learned note, what the
learning steps saved, and how the run ended — each with its time, from the session log alone."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from agentuse.runtime.events import ApprovalDecision, ApprovalRequest, LearningResult, RoundStart, RunEnd, RunStart
from agentuse.runtime.providers import ModelError, ReplayProvider, provider_for
from agentuse.runtime.summary import Session
from agentuse.core.model_defaults import empty_list

DECISION_WORDS = {"approve": "Approved", "revise": "Requested changes", "reject": "Rejected"}
LEARNING_PREFIX = "[Learning] "


class Item(BaseModel):
    at: str | None = None
    kind: str  # round | submitted | decision | learned | withdrawn (a revision that failed) | ended
    title: str
    decision: str | None = None  # approve | revise | reject, for a decision
    comment: str | None = None
    remember: str | None = None
    injected: list[str] = Field(default_factory=empty_list)  # rule ids, for a round
    status: str | None = None  # for the ending


def history(session: Session) -> list[Item]:
    items: list[Item] = []
    for event in session.events:
        if isinstance(event, RunStart):
            items.append(Item(at=event.at, kind="round", title="Round 1 started", injected=list(event.injected)))
        elif isinstance(event, RoundStart):
            items.append(Item(at=event.at, kind="round", title=f"Round {event.round} started (a revision)",
                              injected=list(event.injected)))
        elif isinstance(event, ApprovalRequest):
            items.append(Item(at=event.at, kind="submitted", title=f"Round {event.round} output submitted for review"))
        elif isinstance(event, ApprovalDecision):
            items.append(Item(at=event.at, kind="decision", title=DECISION_WORDS[event.decision],
                              decision=event.decision, comment=event.comment, remember=event.remember))
        elif isinstance(event, LearningResult):
            items.append(Item(at=event.at, kind="learned", title=event.line.removeprefix(LEARNING_PREFIX)))
        elif isinstance(event, RunEnd) and event.revision_failed:
            items.append(Item(at=event.at, kind="withdrawn", title=f"Revision failed: {event.error}; the output "
                              "under review stands", status="failed"))
        elif isinstance(event, RunEnd):
            ended = f"Run ended {event.status.replace('_', ' ')}" if event.status != "awaiting_review" else None
            if ended:
                items.append(Item(at=event.at, kind="ended", title=ended + (f": {event.error}" if event.error else ""),
                                  status=event.status))
    return items


def replay_warning(session: Session) -> str | None:
    """What a reviewer must know before pressing Request changes on a replayed run: a revision asks the
    model for a new answer, and a recording can only play back the replies it holds."""
    if not (session.model or "").startswith("replay:"):
        return None
    base = Path(session.agent_path).parent if session.agent_path else None
    try:
        provider = provider_for(session.model, base_dir=base, replay_skip=session.model_calls)
    except ModelError as problem:
        return f"This run was replayed from a recording, and a revision needs a live model: {problem}."
    assert isinstance(provider, ReplayProvider)
    left = len(provider.replies) - provider.used
    if left <= 0:
        return ("This run was replayed from a recording that has no reply left, so Request changes cannot "
                "revise it: the revision needs a live model, and would fail (the output stays awaiting review). "
                "Approve or Reject it here, or run the agent again with a live model.")
    return (f"This run was replayed from a recording: a revision plays the next recorded reply ({left} left), "
            "not a fresh answer to your comment.")
