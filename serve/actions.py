"""What the buttons do. Each action calls the same function the CLI command calls, so a browser and a
terminal can never mean different things by "approve", "learn from this comment", "discard" or "undo".

The deliberate-learning entry point (`flows/remember.py` `run_remember`) and the post-resume hook
(`flows/post_run.py` `after_resume`) are imported rather than copied, because a second copy of "what happens after an
approval" is exactly how two surfaces would drift apart."""

from __future__ import annotations

from pathlib import Path

from agentuse.core import discard as discarding
from agentuse.core import store
from agentuse.core.errors import AgentuseError
from agentuse.runtime.summary import stretch_learning_lines


def discard(location: store.AgentLocation, rule_id: str) -> str:
    """The Discard button on any rule: `agentuse learnings discard`, to the archive with the reason."""
    return discarding.discarded_line(discarding.discard(location, rule_id))


def restore(agent_path: Path, rule_id: str, *, agent_arg: str) -> list[str]:
    """The Restore button on an archived rule: `agentuse learnings restore`, re-vetted on the way back."""
    from agentuse.core.helper.factory import once
    from agentuse.flows.restore import run_restore  # the flow loads only when a rule is restored

    notices: list[str] = []  # the helper's one-time notice (e.g. the offline evaluator), as the CLI prints it
    lines = run_restore(agent_path, rule_id, agent_arg=agent_arg, announce=once(notices.append)).lines
    return lines + notices


def edit_learning(agent_path: Path, rule_id: str, text: str, *, agent_arg: str) -> list[str]:
    """Edit = the new wording through the add path, so it is grounded, reconciled and vetted exactly like a
    correction typed into the add box, but not against (and folded back into) the words it replaces; the
    old wording goes to the archive (restorable) in the very write that stores the new one. Until then it
    is in force as it was: a model call that fails, or a process killed while one is out, changes nothing."""
    from agentuse.flows.remember import run_remember  # the flow loads only when a rule is edited

    location = store.locate(agent_path)
    old = discarding.find(store.load(location).learnings, rule_id, where=str(location.store_path))
    try:
        lines = run_remember(agent_path, text, agent_arg=agent_arg, replacing=old.id).lines
    except AgentuseError as problem:  # a model that failed the vet, a store it could not write
        raise EditNotSaved(f'{problem}. The edit was not saved: "{old.title}" (id:{old.id}) keeps its old '
                           "wording, in force as before. Save the edit again when the problem is fixed.",
                           http_status=getattr(problem, "http_status", 400)) from problem
    return [f'Replaced "{old.title}" (the old wording is archived, id:{old.id}: Restore brings it back).', *lines]


class EditNotSaved(AgentuseError):
    """The new wording failed after the old one was archived: the page must say where the old one went."""

    def __init__(self, message: str, *, http_status: int) -> None:
        super().__init__(message)
        self.http_status = http_status


def add_learning(agent_path: Path, text: str, *, agent_arg: str) -> list[str]:
    """Manual add: the deliberate-learning flow, exactly as `agentuse learnings add` runs it."""
    from agentuse.flows.remember import run_remember  # the flow loads only when a note is saved

    return run_remember(agent_path, text, agent_arg=agent_arg).lines


def resume_session(session_id: str, decision: str, comment: str | None, learn: bool) -> tuple[bool, list[str]]:
    """The review form -> `agentuse sessions resume`: the same flag rules, the same runtime call. Returns
    (failed, lines): a run that ended failed, a revision that failed, or a note that could not be saved, is
    reported as the error it is."""
    from agentuse.runtime.approval import decision_from_flags, resume

    remember = comment if learn else None
    chosen = decision_from_flags(approve=decision == "approve", reject=decision == "reject", comment=comment,
                                 remember=remember)
    result = resume(session_id, decision=chosen, comment=comment, remember=remember)
    from agentuse.flows.post_run import after_resume

    # The CLI's hook: save the note, capture if done. A note it could not store fails the answer, as the
    # CLI's exit 1 does; its line (with the command that saves it) is among the session's lines below.
    saved = after_resume(result, remember=remember, comment=comment)
    lines = [f"Session {result.session_id}: {result.status.replace('_', ' ')}."]
    if result.revision_failed:
        lines.append(f"The revision failed: {result.error}. The output you were shown still awaits your review.")
    elif result.status == "failed" and result.error:
        lines.append(f"The run failed: {result.error}")
    failed = result.status == "failed" or result.revision_failed or not saved
    return failed, lines + stretch_learning_lines(Path(result.session_file))
