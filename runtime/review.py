"""The review side of a session, as the deliberate-learning path needs it (spec: Deliberate Learning
from Review Comments).

Only a note given with the Learn flag (`--remember`) is durable; a plain comment revises the current run
and is never handed on. Each note travels with the output it was written about, because the learning
processor grounds the note in the work being reviewed.
"""

from __future__ import annotations

from pydantic import BaseModel

from agentuse.runtime.events import ApprovalDecision, ApprovalRequest, Decision, LearningResult, LearningSource
from agentuse.runtime.session import SessionLog
from agentuse.runtime.summary import Session


class RememberedNote(BaseModel):
    session_id: str
    agent_path: str
    agent_key: str
    ih: str
    text: str  # the --remember text, exactly as the reviewer wrote it
    comment: str | None  # the comment given with it, if any (context for grounding)
    decision: Decision
    reviewed_output: str  # the work under review when the note was written
    at: str | None


def remembered_notes(session: Session) -> list[RememberedNote]:
    """Every note recorded with the remember flag, in order, each with the output it was about."""
    start = session.run_start
    if start is None:
        return []
    notes: list[RememberedNote] = []
    under_review = ""
    for event in session.events:
        if isinstance(event, ApprovalRequest):
            under_review = event.output
        elif isinstance(event, ApprovalDecision) and event.remember:
            notes.append(
                RememberedNote(
                    session_id=session.id,
                    agent_path=start.agent_path,
                    agent_key=start.agent_key,
                    ih=start.ih,
                    text=event.remember,
                    comment=event.comment,
                    decision=event.decision,
                    reviewed_output=under_review,
                    at=event.at,
                )
            )
    return notes


def record_learning_result(log: SessionLog, line: str, source: LearningSource | None = None) -> None:
    """Post-run learning (capture or a remembered note) reports its one-line result into the log."""
    log.append(LearningResult(line=line, source=source))
