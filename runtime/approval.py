"""Resuming a run stopped at its approval gate: approve, revise with a comment, or reject.

Counting (spec: How Application Works, What makes a learning permanent): an approval with no comment is
a vote for every rule in force in the round it approves, so each gets `ok` +1; a run that got any
comment — in any round, including a `--remember` note — credits nothing, because the reviewer had to
correct something. A revision round re-reads the store and counts its rules as injected once more.

A resume writes the store and the session log, and can be killed between any two writes. Its writes are
ordered so that the same resume run again finishes the job: the credit is journaled in the log before
the store gets it (so it is never given twice), and a note is in the log with its decision before it is
saved (so it is never lost: `after_resume` saves a note no result line followed).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from pydantic import BaseModel

from agentuse.core import store
from agentuse.core.errors import AgentuseError
from agentuse.core.file_lock import LockTimeout
from agentuse.core.inject import credit_approval
from agentuse.core.shell_env import shell_environment
from agentuse.core.store_format import StoreFormatError
from agentuse.runtime.events import (
    ApprovalCredit,
    ApprovalDecision,
    ApprovalRequest,
    Decision,
    LearningResult,
    RunEnd,
    standing,
    under_review,
)
from agentuse.core.terminal_text import not_utf8
from agentuse.runtime.providers import Provider, provider_for
from agentuse.runtime.runner import Instructions, RunResult, instructions_now, result_of, revise
from agentuse.runtime.session import SessionError, SessionLog, find_log, sessions_roots, this_process, utc_now
from agentuse.runtime.summary import Session, summarize
from agentuse.runtime.tools import ToolBox


def decision_from_flags(*, approve: bool, reject: bool, comment: str | None, remember: str | None) -> Decision:
    """CLI flags -> decision. A comment alone asks for a revision; with --approve/--reject it is a note."""
    if approve and reject:
        raise SessionError("choose one of --approve and --reject")
    if approve:
        return "approve"
    if reject:
        return "reject"
    if comment and comment.strip():
        return "revise"
    if remember:
        raise SessionError('--remember needs a decision: add --approve, --comment "..." or --reject')
    raise SessionError('say what to do: --approve, --comment "..." (revise) or --reject')


def find_session(ref: str, *, env: Mapping[str, str] | None = None) -> Session:
    return summarize(find_log(ref, sessions_roots(store.data_dir(env))))


def resume(
    ref: str,
    *,
    decision: Decision,
    comment: str | None = None,
    remember: str | None = None,
    model: str | None = None,
    env: Mapping[str, str] | None = None,
    clock: Callable[[], str] = utc_now,
) -> RunResult:
    for flag, given in (("--comment", comment), ("--remember", remember)):
        if problem := not_utf8(given):  # before the gate is touched: the session log could not hold it
            raise SessionError(f"{flag} {problem}")
    path = find_log(ref, sessions_roots(store.data_dir(env)))
    # One resumer at a time: two reviewers answering the same gate must not both append to the log.
    lock = store.lock_for(path)
    try:
        lock.acquire(timeout=0)
    except LockTimeout:
        raise SessionError(f"session {path.stem} is being resumed by another process") from None
    try:
        return _resume_locked(path, decision, comment, remember, model, env, clock)
    finally:
        lock.release()


class Answered(BaseModel):
    """What a resume of the current round (since the last approval request) already wrote to the log: a
    resume killed part-way leaves some of it, and the same resume run again finishes from there."""

    round: int = 0
    credit: dict[str, int] | None = None  # ok: before the credit, when one was journaled this round
    decision: ApprovalDecision | None = None
    ended: RunEnd | None = None  # the run_end written after that decision
    noted: bool = False  # a remembered note's result lines after the decision: it was saved
    captured: bool = False  # the post-run capture's after the decision: it ran


def answered(session: Session) -> Answered:
    events = standing(session.events)  # a revision that failed answered nothing: the gate stands again
    asked = max((i for i, e in enumerate(events) if isinstance(e, ApprovalRequest)), default=-1)
    found = Answered(round=events[asked].round if asked >= 0 else 0)
    for event in events[asked + 1:]:
        if isinstance(event, ApprovalCredit) and found.decision is None:
            found.credit = event.ok_before
        elif isinstance(event, ApprovalDecision):
            found.decision = event
            found.noted = found.captured = False  # what reported after an earlier decision was not this one's
        elif isinstance(event, RunEnd) and found.decision is not None:
            found.ended = event
        elif isinstance(event, LearningResult) and found.decision is not None:
            found.noted = found.noted or event.source in ("note", None)
            found.captured = found.captured or event.source in ("capture", None)
    return found


def _resume_locked(
    path: Path,
    decision: Decision,
    comment: str | None,
    remember: str | None,
    model: str | None,
    env: Mapping[str, str] | None,
    clock: Callable[[], str],
) -> RunResult:
    session = summarize(path)
    start = session.run_start
    if start is None:
        # Without run_start the agent, model and injected rules are unknown: nothing can be resumed. Say why.
        raise SessionError(f"session {session.id} cannot be resumed: {'; '.join(session.notes)} "
                           f"(repair that line of {path}, or start a new run)")
    chosen = ApprovalDecision(
        decision=decision,
        comment=comment.strip() if comment and comment.strip() else None,
        remember=remember.strip() if remember and remember.strip() else None,
        **this_process(),
    )
    log = SessionLog(path, clock=clock)
    done = answered(session)
    if done.decision is not None and done.decision.decision == "revise" and done.ended is None:
        # A revision with no run_end, and this resume holds the log's lock: the resume that was revising is
        # gone (killed). Withdraw its revision as a failed one is, and answer the gate as it stands.
        log.append(RunEnd(status="awaiting_review", output=under_review(session.events),
                          error="the revision was interrupted before it finished (its process is gone)"))
        session = summarize(path)
        done = answered(session)
    if done.decision is not None:
        return _finish(log, session, done, chosen)
    if session.status != "awaiting_review":
        raise _not_awaiting(session)
    agent_path = Path(start.agent_path)
    revision: tuple[Provider, Instructions, store.AgentLocation, ToolBox] | None = None
    if decision == "revise":
        # Before the decision is logged: a missing key, or an agent file or store that cannot be read, must
        # leave the session awaiting review, untouched. A replay provider skips the replies already consumed.
        provider = provider_for(model or start.model, env=env, base_dir=agent_path.parent,
                                replay_skip=session.model_calls)
        location = store.locate(agent_path, env=env)
        agent, now = instructions_now(agent_path, location)
        tools = ToolBox(Path(start.project_root), environment=shell_environment(
            os.environ if env is None else env, model=model or start.model, let_through=agent.shell_env))
        revision = provider, now, location, tools
    if decision == "approve" and not (session.had_feedback or chosen.has_feedback):
        # Credited before the decision is logged: a store that cannot be read leaves the gate unanswered.
        # Journaled in the log first (under the store lock), so a re-run after a crash credits once.
        def journal(ok_before: dict[str, int]) -> None:
            log.append(ApprovalCredit(round=done.round, ok_before=ok_before))

        try:
            # The round under review: the rules in force when this output was written.
            credit_approval(store.locate(agent_path, env=env), session.injected, journal=journal,
                            unless_since=done.credit)
        except StoreFormatError as problem:
            raise SessionError(f"{problem} — fix the learnings file, then approve again") from None
    if chosen.remember:
        # The note is saved into the store after the decision: a store that cannot be read would leave it
        # stranded in the log with the gate already answered. Stop first, as an uncommented approval does.
        try:
            store.load(store.locate(agent_path, env=env))
        except StoreFormatError as problem:
            raise SessionError(f"{problem} — fix the learnings file, then answer again with the note") from None
    log.append(chosen)
    if revision is not None:
        provider, now, location, tools = revision
        return revise(log, now, location=location, provider=provider, tools=tools)
    return _end(log, session, decision)


def _end(log: SessionLog, session: Session, decision: Decision) -> RunResult:
    log.append(RunEnd(status="completed" if decision == "approve" else "rejected", output=session.output))
    return result_of(log)


def _finish(log: SessionLog, session: Session, done: Answered, chosen: ApprovalDecision) -> RunResult:
    """The gate was answered by a resume that may have been killed before it was through. The same answer
    again finishes what it left: the run_end, and the note (`after_resume` saves one no result line
    followed). Anything else is refused as for any session no longer awaiting review."""
    logged = done.decision
    same = (logged.decision, logged.remember) == (chosen.decision, chosen.remember)
    if logged.decision == "revise" or not same:
        if done.ended is None:
            raise SessionError(
                f"session {session.id} was answered ({logged.decision}"
                f"{' with a note' if logged.remember else ''}) by a resume that was interrupted; run that same "
                "resume again to finish it")
        raise _not_awaiting(session)
    if done.ended is None:
        return _end(log, session, logged.decision)
    if logged.remember and not done.noted:
        return result_of(log)  # the note was not saved yet (or its result not logged): after_resume sees to it
    if done.ended.status == "completed" and not done.captured and _captures(session):
        return result_of(log)  # approved, the run's capture not reported: after_resume runs it
    raise _not_awaiting(session)


def _captures(session: Session) -> bool:
    """Does the approved run get a post-run capture (an automatic channel)? An agent file that cannot be
    read now is not guessed at."""
    from agentuse.core.agent_file import load_agent

    try:
        return bool(session.run_start and load_agent(Path(session.run_start.agent_path)).channels)
    except (AgentuseError, OSError, ValueError):
        return False


def _not_awaiting(session: Session) -> SessionError:
    return SessionError(
        f"session {session.id} is {session.status.replace('_', ' ')}: only a session awaiting review can be resumed"
    )
