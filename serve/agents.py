"""The Agents page and each agent's Learnings tab (spec: Seeing what capture is doing, Quarantine, Moving
learnings). Both render `core.describe`'s Report, the one `agentuse learnings` prints, so the groups and
counts on the page are the CLI's."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agentuse.core.agent_file import read_block
from agentuse.core.describe import EntryView, Report, describe
from agentuse.core.terminal_text import display_path
from agentuse.core.status_text import GROUP_TITLES, meta_line, outside_cap_lines, stranded_lines
from agentuse.serve import actions
from agentuse.serve.project import last_tidy
from agentuse.serve.security import csrf_protected
from agentuse.serve.web import agent_url, project, redirect, render


def index(request: Request) -> Response:
    return render(request, "agents.html", cards=project(request).cards())


def groups(report: Report) -> list[dict]:
    """The CLI's groups in the CLI's order: Applied (I of A) first, then the titled ones."""
    by_group: dict[str, list[EntryView]] = {}
    for entry in report.entries:
        by_group.setdefault(entry.group, []).append(entry)
    shown = []
    if report.active or by_group.get("applied"):
        shown.append({"key": "applied", "title": f"Applied ({report.injected} of {report.active})",
                      "entries": by_group.get("applied", [])})
    for group, title in GROUP_TITLES.items():
        if by_group.get(group):
            shown.append({"key": group, "title": f"{title} ({len(by_group[group])})", "entries": by_group[group]})
    return shown


def badges(entry: EntryView) -> list[str]:
    """The state badge, then why a dormant rule is dormant (a stale rule is dormant *and* stale). "ready to
    make permanent" stays in the meta line, worded as the CLI words it."""
    why = {"stale": ["stale"], "outside_cap": ["outside the cap"], "held": ["held: apply is off"]}
    return [entry.state, *why.get(entry.group, [])]


def learnings(request: Request) -> Response:
    key = request.path_params["key"]
    path = project(request).resolve(key)
    agent, location, report = describe(path)
    return render(
        request,
        "learnings.html",
        key=key,
        report=report,
        groups=groups(report),
        badges=badges,
        meta=meta_line,
        block=read_block(agent.text, filename=str(agent.path)) or [],
        stranded=stranded_lines(report),
        outside_cap=outside_cap_lines(report, key),
        file=display_path(report.file),
        last=last_tidy(location),
        job=request.app.state.jobs.current(key),
    )


def learnings_json(request: Request) -> Response:
    """What `agentuse learnings <agent-file> --json` prints."""
    _, _, report = describe(project(request).resolve(request.path_params["key"]))
    return JSONResponse(report.model_dump(mode="json"))


@csrf_protected
async def add(request: Request) -> Response:
    key = request.path_params["key"]
    path = project(request).resolve(key)
    text = str((await request.form()).get("text", "")).strip()
    if not text:
        return redirect(request, agent_url(key), kind="error", lines=["Write the correction first: the box was empty."])
    lines = await run_in_threadpool(lambda: actions.add_learning(path, text, agent_arg=key))
    return redirect(request, agent_url(key), lines=lines)


@csrf_protected
async def discard(request: Request) -> Response:
    key, rule_id = request.path_params["key"], request.path_params["rule_id"]
    location = project(request).location(key)
    line = await run_in_threadpool(actions.discard, location, rule_id)
    return redirect(request, agent_url(key), lines=[line])


ROUTES = [
    Route("/", index, name="agents"),
    Route("/agents/{key:path}/learnings.json", learnings_json, name="learnings_json"),
    Route("/agents/{key:path}/learnings/add", add, methods=["POST"], name="learnings_add"),
    Route("/agents/{key:path}/learnings/{rule_id}/discard", discard, methods=["POST"], name="learnings_discard"),
    Route("/agents/{key:path}/learnings", learnings, name="learnings"),
]
