"""What happens after a run: the hooks `agentuse run`, `agentuse sessions resume` and the serve UI call
(spec: How capture works, Deliberate Learning from Review Comments).

Every result line goes to the session log as a `learning_result` event (the flows record their own; a
deployment-run capture does too), so the run output and `sessions show` say the same thing. Capture runs
after a run that completed with an automatic channel configured; `learning: true` alone makes no post-run
model call. With `AGENTUSE_CAPTURE_VIA=prefect` and a Prefect API configured, the run emits
`agentuse.run.completed` instead and a deployment captures it: never both. Prefect and the flows are
imported inside the functions that need them, so the surfaces that import this module stay fast.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from agentuse.core.errors import AgentuseError
from agentuse.core.terminal_text import printable

if TYPE_CHECKING:
    from agentuse.core.capture_report import CaptureReport
    from agentuse.runtime.runner import RunResult

CAPTURE_VIA = "AGENTUSE_CAPTURE_VIA"  # "inline" (default) or "prefect"
# The one definition: deployments/definitions.py triggers on it, and this module (no prefect at import) emits it.
RUN_COMPLETED = "agentuse.run.completed"
# The deployment that captures on that event (deployments/definitions.py serves it under this name).
CAPTURE_DEPLOYMENT = "post-run-capture"


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


def channels_of(agent) -> list[str]:
    return agent.learning.capture.channels if agent.learning else []


def _log_lines(session_file: Path, lines: list[str]) -> None:
    from agentuse.runtime.review import record_learning_result
    from agentuse.runtime.session import SessionLog

    log = SessionLog(Path(session_file))
    for line in lines:
        record_learning_result(log, line)


# ---------------------------------------------------------------- post-run hooks


def after_run(agent_file: Path, result: "RunResult", *, announce: Announce | None = None) -> None:
    """Capture a run that completed, when the agent names an automatic channel. A capture that fails says
    so in the output and the log; it never turns a finished run into a failed one."""
    if result.status != "completed":
        return  # a run at its gate is captured when it is approved; rejected and failed runs are not
    from agentuse.core.agent_file import load_agent

    try:
        if not channels_of(load_agent(agent_file)):
            return  # learning: true alone: no post-run model call at all
        via_prefect = _via_prefect()
        unserved = _unserved_capture() if via_prefect else None
        if via_prefect and unserved is None and _emit_completed(agent_file, result):
            lines = [f"[Learning] Capture handed to Prefect: {RUN_COMPLETED} for session {result.session_id}"]
        else:
            from agentuse.flows.capture import run_capture

            if unserved is not None:  # never hand a capture to a deployment nothing will run: say so, do it here
                _log_lines(Path(result.session_file), [f"[Learning] Captured here, not by Prefect: {unserved}."])
            run_capture(agent_file, result.session_file, announce=announce,  # the flow logs its lines
                        inline=unserved is not None)
            return
    except (AgentuseError, OSError, ValueError) as problem:  # a model fault too: reported, never fatal to the run
        lines = [f"[Learning] Capture failed: {problem}"]
    _log_lines(Path(result.session_file), lines)


def after_resume(result: "RunResult", *, remember: str | None, comment: str | None) -> None:
    """`sessions resume --remember`: save the note first (the deliberate path), then capture the run if
    this decision completed it. Both may need the helper: they share one announcer."""
    agent_path = _agent_path(result)
    announce = announcer()
    if remember and remember.strip():
        from agentuse.runtime.approval import find_session
        from agentuse.runtime.review import remembered_notes

        notes = remembered_notes(find_session(result.session_id))
        reviewed = notes[-1].reviewed_output if notes else ""
        from agentuse.flows.remember import run_remember

        if (saved := _saved_note(agent_path, result.session_id, remember)) is not None:
            # A resume killed after saving the note and before logging it, run again: say so, save nothing.
            _log_lines(Path(result.session_file), [f'[Learning] Saved "{saved.title}" (id:{saved.id})'])
        else:
            try:  # the flow records its lines in the session log
                run_remember(agent_path, remember, agent_arg=as_typed(agent_path), session=result.session_file,
                             label=result.session_id, comment=comment, reviewed_output=reviewed,
                             announce=announce)
            except (AgentuseError, OSError, ValueError) as problem:
                _log_lines(Path(result.session_file), [
                    f"[Learning] Could not save the note ({problem}). It is kept in session {result.session_id}; "
                    f'save it again with: agentuse learnings add {agent_path} "..."'])
    after_run(agent_path, result, announce=announce)


def _saved_note(agent_path: Path, session_id: str, text: str):
    from agentuse.core import remember, store

    try:
        learnings = store.load(store.locate(agent_path)).learnings
    except (AgentuseError, OSError, ValueError):
        return None  # the remember path reports an unreadable store itself
    return remember.saved_as(learnings, remember.Note(text=text.strip(), session=session_id))


def _agent_path(result: "RunResult") -> Path:
    from agentuse.runtime.session import read_events
    from agentuse.runtime.events import RunStart

    start = next(e for e in read_events(Path(result.session_file))[0] if isinstance(e, RunStart))
    return Path(start.agent_path)


def _via_prefect() -> bool:
    return os.environ.get(CAPTURE_VIA, "").strip().lower() == "prefect" and bool(os.environ.get("PREFECT_API_URL"))


def _unserved_capture() -> str | None:
    """None when the API has the post-run capture deployment and a process is serving it (its status is
    READY: a runner polled for it recently); otherwise why an emitted event would capture nothing."""
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    url = os.environ.get("PREFECT_API_URL", "")
    try:
        with get_client(sync_client=True) as client:
            deployment = client.read_deployment_by_name(f"capture/{CAPTURE_DEPLOYMENT}")
    except ObjectNotFound:
        return f"no {CAPTURE_DEPLOYMENT} deployment is registered at {url} (start one: agentuse deploy serve)"
    except Exception as problem:  # noqa: BLE001 - an API that does not answer must not lose the capture
        return f"the Prefect API at {url} did not answer ({type(problem).__name__})"
    status = getattr(getattr(deployment, "status", None), "value", "READY")
    if str(status).upper() != "READY":
        return f"nothing is serving the {CAPTURE_DEPLOYMENT} deployment at {url} (start: agentuse deploy serve)"
    return None


def _emit_completed(agent_file: Path, result: "RunResult") -> bool:
    """The post-run trigger: resource is the session, related is the agent. False when Prefect did not
    take the event (events disabled): then capture runs inline, so a run is never left uncaptured."""
    from prefect.events import emit_event  # lazily: only this mode pays for `import prefect`

    from agentuse.core import store

    location = store.locate(agent_file)
    event = emit_event(
        event=RUN_COMPLETED,
        resource={"prefect.resource.id": f"agentuse.session.{result.session_id}",
                  "prefect.resource.name": result.session_id, "agentuse.session-file": result.session_file},
        related=[{"prefect.resource.id": f"agentuse.agent.{location.key}", "prefect.resource.role": "agent",
                  "prefect.resource.name": location.key, "agentuse.agent-file": str(location.agent_path)}],
        payload={"session": result.session_id, "session_file": result.session_file,
                 "agent_file": str(location.agent_path), "status": result.status},
    )
    return event is not None
