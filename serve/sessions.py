"""Sessions: the list, one session's log, and the review form of a session stopped at its approval gate.

The review form means exactly what `agentuse sessions resume` means: Approve / Request changes / Reject
are --approve / --comment / --reject, the comment rides along as a note on approve and reject, and the
"Learn from this comment" box is --remember with the comment's own text (spec: the same comment serves
both purposes). It calls the same runtime function, under the same per-session lock.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agentuse.core.describe import describe
from agentuse.core.errors import AgentuseError
from agentuse.runtime.session import list_logs
from agentuse.runtime.session_text import event_line, masked
from agentuse.runtime.summary import summaries, summarize
from agentuse.serve import actions, review
from agentuse.serve.markdown import render_markdown
from agentuse.serve.limits import read_form
from agentuse.serve.security import csrf_protected
from agentuse.serve.web import project, redirect, render

DECISIONS = {"approve", "revise", "reject"}


def index(request: Request) -> Response:
    here = project(request)
    agent = request.query_params.get("agent")
    unread: list[str] = []  # one log that cannot be read is named; it never hides the other runs
    rows = [(s, here.key_for(s.agent_path)) for s in summaries(list_logs(here.session_dirs()), unread)]
    rows = [(s, key) for s, key in rows if agent is None or key == agent]
    return render(request, "sessions.html", rows=rows, agent=agent, unread=unread)


class UnknownSession(AgentuseError):
    http_status = 404


def _session(request: Request):
    """The session a URL names: its whole id, or a prefix only it has. The page says it in the web's words
    (the CLI's advice names `sessions list`, which a browser has no use for)."""
    given, dirs = request.path_params["session_id"], project(request).session_dirs()
    matches = [log for log in list_logs(dirs) if log.stem.upper().startswith(given.strip().upper())]
    if not given.strip() or not matches:
        raise UnknownSession(f"There is no session {given!r} in {project(request).name}. The Sessions page lists "
                             "every run this server can see.")
    if len(matches) > 1:
        raise AgentuseError(f"{given!r} is the start of {len(matches)} sessions' ids; open the one you mean from "
                            "the Sessions page.")
    return summarize(matches[0])


def detail(request: Request) -> Response:
    session = masked(_session(request))  # what `agentuse sessions show` prints: no credential on the page
    agent_key = project(request).key_for(session.agent_path)
    return render(request, "session.html", session=session, event_line=event_line, agent_key=agent_key,
                  rules=_rules_from(request, agent_key, session.id), history=review.history(session),
                  replay_warning=review.replay_warning(session) if session.status == "awaiting_review" else None,
                  markdown=render_markdown)


def _rules_from(request: Request, agent_key: str | None, session_id: str) -> list:
    """This session's learnings as they stand now (rules whose `sess:` names it), from the same report."""
    if agent_key is None:
        return []
    try:
        _, _, report = describe(project(request).resolve(agent_key))
    except (AgentuseError, ValueError):
        return []  # the session page stays readable when the agent or its store is broken
    return [entry for entry in report.entries if entry.record.get("sess") == session_id]


@csrf_protected
async def resume(request: Request) -> Response:
    session = _session(request)
    form = await read_form(request)
    decision = str(form.get("decision", ""))
    comment = str(form.get("comment", "")).strip() or None
    learn = form.get("learn") is not None
    here = f"/sessions/{session.id}"
    if decision not in DECISIONS:
        raise AgentuseError("choose Approve, Request changes or Reject")
    if decision == "revise" and not comment:
        return redirect(request, here, kind="error", lines=["Request changes needs a comment saying what to change."])
    if learn and not comment:
        return redirect(request, here, kind="error",
                        lines=["Learn from this comment needs a comment: write the correction to keep."])
    failed, lines = await run_in_threadpool(actions.resume_session, session.id, decision, comment, learn)
    return redirect(request, here, kind="error" if failed else "ok", lines=lines)


ROUTES = [
    Route("/sessions", index, name="sessions"),
    Route("/sessions/{session_id}", detail, name="session"),
    Route("/sessions/{session_id}/resume", resume, methods=["POST"], name="session_resume"),
]
