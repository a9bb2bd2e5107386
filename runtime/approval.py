"""Resuming a run stopped at its approval gate: approve, revise with a comment, or reject.

Counting (spec: How Application Works, What makes a learning permanent): an approval with no comment is
a vote for every rule in force in the round it approves, so each gets `ok` +1; a run that got any
comment — in any round, including a `--remember` note — credits nothing, because the reviewer had to
correct something. A revision round re-reads the store and counts its rules as injected once more.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

import filelock

from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.inject import credit_approval
from agentuse.core.store_format import StoreFormatError
from agentuse.runtime.events import ApprovalDecision, Decision, RunEnd
from agentuse.runtime.providers import Provider, provider_for
from agentuse.runtime.runner import Instructions, RunResult, instructions_now, result_of, revise
from agentuse.runtime.session import SessionError, SessionLog, find_log, sessions_roots, utc_now
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
    path = find_log(ref, sessions_roots(store.data_dir(env)))
    try:
        # One resumer at a time: two reviewers answering the same gate must not both append to the log.
        with filelock.FileLock(f"{path}.lock", timeout=0):
            return _resume_locked(path, decision, comment, remember, model, env, clock)
    except filelock.Timeout:
        raise SessionError(f"session {path.stem} is being resumed by another process") from None


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
    if session.status != "awaiting_review":
        raise SessionError(
            f"session {session.id} is {session.status.replace('_', ' ')}: only a session awaiting review can be resumed"
        )
    agent_path = Path(start.agent_path)
    revision: tuple[Provider, Instructions, store.AgentLocation] | None = None
    if decision == "revise":
        # Before the decision is logged: a missing key, or an agent file or store that cannot be read, must
        # leave the session awaiting review, untouched. A replay provider skips the replies already consumed.
        provider = provider_for(model or start.model, env=env, base_dir=agent_path.parent,
                                replay_skip=session.model_calls)
        location = store.locate(agent_path, env=env)
        revision = provider, instructions_now(load_agent(agent_path), location), location
    chosen = ApprovalDecision(
        decision=decision,
        comment=comment.strip() if comment and comment.strip() else None,
        remember=remember.strip() if remember and remember.strip() else None,
        pid=os.getpid(),
    )
    if decision == "approve" and not (session.had_feedback or chosen.has_feedback):
        # Credited before the decision is logged: a store that cannot be read leaves the gate unanswered.
        try:
            # The round under review: the rules in force when this output was written.
            credit_approval(store.locate(agent_path, env=env), session.injected)
        except StoreFormatError as problem:
            raise SessionError(f"{problem} — fix the learnings file, then approve again") from None
    if chosen.remember:
        # The note is saved into the store after the decision: a store that cannot be read would leave it
        # stranded in the log with the gate already answered. Stop first, as an uncommented approval does.
        try:
            store.load(store.locate(agent_path, env=env))
        except StoreFormatError as problem:
            raise SessionError(f"{problem} — fix the learnings file, then answer again with the note") from None
    log = SessionLog(path, clock=clock)
    log.append(chosen)
    if revision is not None:
        provider, now, location = revision
        return revise(log, now, location=location, provider=provider, tools=ToolBox(Path(start.project_root)))
    status = "completed" if decision == "approve" else "rejected"
    log.append(RunEnd(status=status, output=session.output))
    return result_of(log)
