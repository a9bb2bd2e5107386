"""Tidy up and Undo (spec: Tidying up). Pressing Tidy up starts the tidy flow as a background job, or
joins the one already running for that agent, and answers 202 with the job's page; that page shows the
pass and the rules rewritten so far, then waits with the result, both diffs and an Undo button."""

from __future__ import annotations

from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from agentuse.core import overcap, snapshots, store
from agentuse.core.errors import AgentuseError
from agentuse.core.tidy_report import render as render_result
from agentuse.core.tidy_commit import snapshot_diffs
from agentuse.serve.diffview import file_diffs
from agentuse.serve.project import last_tidy
from agentuse.serve.security import csrf_protected
from agentuse.serve.web import agent_key, agent_url, project, redirect, render


class UnknownJob(AgentuseError):
    http_status = 404


@csrf_protected
async def start(request: Request) -> Response:
    key, path = agent_key(request)
    job, joined = request.app.state.jobs.start_or_join(key, path)
    headers = {"Location": job.url}
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse({"job": job.url, "joined": joined}, status_code=202, headers=headers)
    # A plain form post lands here: 202 as promised, and the page moves on to the job by itself.
    what = "Joined the tidy-up already running" if joined else "Tidy-up started"
    body = (f'<!doctype html><meta http-equiv="refresh" content="0;url={job.url}">'
            f'<title>{what}</title><p>{what}: <a href="{job.url}">follow it</a>.</p>')
    return HTMLResponse(body, status_code=202, headers=headers)


def _job(request: Request):
    job = request.app.state.jobs.get(request.path_params["job_id"])
    if job is None:
        raise UnknownJob("no such tidy-up on this server (it may have been started before a restart): "
                         "the agent's Learnings tab links to the last one while it can be undone")
    return job


def page(request: Request) -> Response:
    job = _job(request)
    location = project(request).location(job.key)
    last = last_tidy(location)
    result = job.result
    undoable = bool(result is not None and result.snapshot and last and last.undoable and last.folder == result.snapshot)
    return render(request, "tidy.html", job=job, state=job.progress(), result=result,
                  details=_details(result), undoable=undoable, diffs=file_diffs(job.diffs),
                  snapshot_name=last.name if undoable and last else "",
                  overcap_heading=overcap.heading, reason_text=overcap.reason_text)


def _details(result) -> list[tuple[int, str]]:
    """The CLI's result lines as (indent level, text), less what the page shows in its own form: "Done",
    the summary, the permanent rules, the over-cap account and the diffs (each file's diff is drawn once)."""
    if result is None or result.nothing:
        return []
    rest = result.model_copy(update={"permanent": [], "overcap": None, "diffs": {}})
    return [((len(line) - len(line.lstrip(" "))) // 2, line.strip()) for line in render_result(rest)[2:] if line.strip()]


def progress(request: Request) -> Response:
    return JSONResponse(_job(request).progress())


def last(request: Request) -> Response:
    """The last tidy-up of an agent, whether it ran here or in a terminal: what changed, and Undo."""
    key, path = agent_key(request)
    location = store.locate(path)
    found = last_tidy(location)
    if found is None:
        return redirect(request, agent_url(key), kind="error", lines=["No tidy-up of this agent has been recorded."])
    job = request.app.state.jobs.for_snapshot(found.folder)
    return render(request, "tidy_last.html", key=key, last=found, job=job,
                  diffs=file_diffs(snapshot_diffs(Path(found.folder), location.agent_path, location.store_path)))


@csrf_protected
async def undo(request: Request) -> Response:
    key, path = agent_key(request)
    location = store.locate(path)
    # The pass the page showed (its snapshot folder's name), when the form says: never one that ran since.
    shown = str((await request.form()).get("snapshot", "")).strip() or None
    snapshot = await run_in_threadpool(snapshots.undo, location, expected=shown)
    return redirect(request, agent_url(key), lines=[
        f"Undid the {snapshot.manifest.kind} of {snapshot.manifest.created}: "
        + ("the agent file and the learnings file are back to what they were before it."
           if snapshot.manifest.kind == snapshots.TIDY_UP else "the learnings file is back to what it was before it.")
        + (f" ({snapshots.CARRIED}.)" if snapshot.manifest.undo_from else "")])


ROUTES = [
    Route("/agents/{key:path}/tidy/last", last, name="tidy_last"),
    Route("/agents/{key:path}/tidy", start, methods=["POST"], name="tidy_start"),
    Route("/agents/{key:path}/undo", undo, methods=["POST"], name="tidy_undo"),
    Route("/tidy/{job_id}.json", progress, name="tidy_progress"),
    Route("/tidy/{job_id}", page, name="tidy_page"),
]
