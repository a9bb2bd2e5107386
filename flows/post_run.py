"""What happens after a run: the hooks `agentuse run`, `agentuse sessions resume` and the serve UI call
(spec: How capture works, Deliberate Learning from Review Comments).

Every result line goes to the session log as a `learning_result` event (the flows record their own; a
deployment-run capture does too), so the run output and `sessions show` say the same thing. Capture runs
after a run that completed with an automatic channel configured; `learning: true` alone makes no post-run
model call. With `AGENTUSE_CAPTURE_VIA=prefect` and a Prefect API configured, the run emits
`agentuse.run.completed` instead and a deployment captures it, never both (flows/handoff.py). Prefect and
the flows are imported inside the functions that need them, so the surfaces that import this module stay fast.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal

from agentuse.core.errors import AgentuseError
from agentuse.flows import handoff

if TYPE_CHECKING:
    from agentuse.runtime.runner import RunResult

Announce = Callable[[str], None]


def as_typed(path: Path) -> str:
    """The agent file as a person would type it here (`./blog-writer.agentuse`, as the spec's messages
    show it); sessions record absolute paths."""
    try:
        return "./" + Path(path).resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def announcer() -> Announce:
    """One per command (tasks/helpers.py): several flows of one command print the offline notice once."""
    from agentuse.tasks.helpers import announcer as one_per_command

    return one_per_command()


def _log_lines(session_file: Path, lines: list[str], source: Literal["capture", "note"]) -> None:
    from agentuse.runtime.review import record_learning_result
    from agentuse.runtime.session import SessionLog

    log = SessionLog(Path(session_file))
    for line in lines:
        record_learning_result(log, line, source)


# ---------------------------------------------------------------- post-run hooks


def after_run(agent_file: Path, result: "RunResult", *, announce: Announce | None = None) -> None:
    """Capture a run that completed, when the agent names an automatic channel. A capture that fails says
    so in the output and the log; it never turns a finished run into a failed one."""
    if result.status != "completed":
        return  # a run at its gate is captured when it is approved; rejected and failed runs are not
    from agentuse.core.agent_file import load_agent

    try:
        if not load_agent(agent_file).channels:
            return  # learning: true alone: no post-run model call at all
        via_prefect = handoff.via_prefect()
        # Handed over only to a deployment that is served; run as a flow run only on an API that answers.
        unserved = handoff.unserved_capture() if via_prefect else (handoff.no_api() or handoff.unreachable_api())
        if via_prefect and unserved is None and handoff.emit_completed(agent_file, result):
            lines = [f"[Learning] Capture handed to Prefect: {handoff.RUN_COMPLETED} for session {result.session_id}"]
        else:
            from agentuse.flows.capture import run_capture

            if unserved is not None:  # never hand a capture to a deployment nothing will run: say so, do it here
                _log_lines(Path(result.session_file), [f"[Learning] Captured here, not by Prefect: {unserved}."],
                           "capture")
            run_capture(agent_file, result.session_file, announce=announce,  # the flow logs its lines
                        inline=unserved is not None)
            return
    except (AgentuseError, OSError, ValueError) as problem:  # a model fault too: reported, never fatal to the run
        lines = [f"[Learning] Capture failed: {problem}"]
    _log_lines(Path(result.session_file), lines, "capture")


def after_resume(result: "RunResult", *, remember: str | None, comment: str | None) -> bool:
    """`sessions resume --remember`: save the note first (the deliberate path), then capture the run if
    this decision completed it. Both may need the helper: they share one announcer. False when the note
    could not be saved: the log says why and gives the command that saves it, and the CLI exits 1."""
    saved_ok = True
    agent_path = _agent_path(result)
    announce = announcer()
    from agentuse.runtime.approval import answered, find_session

    session = find_session(result.session_id)
    # Run again after a kill, a resume finishes only the step that has not reported (runtime/approval.py).
    if remember and remember.strip() and not answered(session).noted:
        from agentuse.runtime.review import remembered_notes

        notes = remembered_notes(session)
        reviewed = notes[-1].reviewed_output if notes else ""
        from agentuse.flows.remember import run_remember

        if (lines := _saved_note(agent_path, Path(result.session_file), result.session_id, remember)) is not None:
            # A resume killed after saving the note and before logging it, run again: say so, save nothing.
            _log_lines(Path(result.session_file), lines, "note")
        else:
            try:  # the flow records its lines in the session log
                run_remember(agent_path, remember, agent_arg=as_typed(agent_path), session=result.session_file,
                             label=result.session_id, comment=comment, reviewed_output=reviewed,
                             announce=announce)
            except (AgentuseError, OSError, ValueError) as problem:
                saved_ok = False
                _log_lines(Path(result.session_file), [
                    f"[Learning] Could not save the note ({problem}). It is kept in session {result.session_id}; "
                    f"save it again with: agentuse learnings add {shlex.quote(str(agent_path))} "
                    f"{shlex.quote(remember.strip())}"], "note")
    if not answered(session).captured:
        after_run(agent_path, result, announce=announce)
    return saved_ok


def _saved_note(agent_path: Path, session_file: Path, session_id: str, text: str) -> list[str] | None:
    """The result line of this session's note if the store holds it already: a rule saved from it, or the
    repeat its log journaled before the store was written (runtime/events.py NoteRepeat)."""
    from agentuse.core import remember, store
    from agentuse.runtime.events import ApprovalDecision, NoteRepeat
    from agentuse.runtime.session import read_events

    try:
        learnings = store.load(store.locate(agent_path)).learnings
    except (AgentuseError, OSError, ValueError):
        return None  # the remember path reports an unreadable store itself
    note = remember.Note(text=text.strip(), session=session_id)
    if (saved := remember.saved_as(learnings, note)) is not None:
        from agentuse.core.agent_file import load_agent

        try:
            agent, archived = load_agent(agent_path), store.load_archive(store.locate(agent_path)).learnings
        except (AgentuseError, OSError, ValueError):
            return [f'[Learning] Saved "{saved.title}" (id:{saved.id})']  # what the store alone tells
        return remember.recorded_lines(saved, archived, note, agent_arg=as_typed(agent_path),
                                       applies=agent.applies, cap=agent.cap)
    journaled = None
    for event in read_events(session_file)[0]:
        if isinstance(event, ApprovalDecision):
            journaled = None  # a repeat journaled for an earlier decision's note is not this note's
        elif isinstance(event, NoteRepeat):
            journaled = event
    if journaled is None or (rule := remember.repeat_landed(learnings, journaled.rule, journaled.re)) is None:
        return None
    return [remember.repeat_line(rule, agent_arg=as_typed(agent_path))]


def _agent_path(result: "RunResult") -> Path:
    from agentuse.runtime.session import read_events
    from agentuse.runtime.events import RunStart

    start = next(e for e in read_events(Path(result.session_file))[0] if isinstance(e, RunStart))
    return Path(start.agent_path)
