"""The Agents page and each agent's Learnings tab (spec: Seeing what capture is doing, Quarantine, Moving
learnings). Both render `core.describe`'s Report, the one `agentuse learnings` prints, so the groups and
counts on the page are the CLI's."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agentuse.core import store
from agentuse.core.agent_file import read_block
from agentuse.core.describe import EntryView, Report, describe, load_index
from agentuse.core.errors import AgentuseError
from agentuse.core.store_format import StoreFormatError
from agentuse.core.terminal_text import display_path
from agentuse.core.status_text import GROUP_TITLES, figures_line, meta_line, stranded_lines
from agentuse.serve import actions, notices
from agentuse.serve.charts import in_force_chart, outcome_bar
from agentuse.serve.project import last_tidy
from agentuse.serve.limits import read_form
from agentuse.serve.security import csrf_protected
from agentuse.serve.web import agent_key, agent_url, project, redirect, render


def index(request: Request) -> Response:
    return render(request, "agents.html", cards=project(request).cards())


# The CLI's groups and titles, in the order a reviewer needs them: what reaches the runs, then what needs a
# decision (quarantined, stale), then what waits (outside the cap, held, graduated copies).
WEB_ORDER = ("quarantined", "stale", "outside_cap", "held", "graduated")
# Groups that start folded: long lists nobody has to act on this minute.
FOLDED = {"outside_cap", "graduated", "archived"}
ARCHIVED_TITLE = "Archived — discarded, retired or replaced; Restore re-vets one and puts it back"


def groups(report: Report, archived: list[dict] | None = None) -> list[dict]:
    """Applied (I of A) first, then the titled groups in WEB_ORDER, then the archive."""
    by_group: dict[str, list] = {}
    for entry in report.entries:
        by_group.setdefault(entry.group, []).append(entry)
    shown = []
    if report.active or by_group.get("applied"):
        shown.append({"key": "applied", "title": f"Applied ({report.injected} of {report.active})",
                      "entries": by_group.get("applied", []), "open": True})
    for group in WEB_ORDER:
        if by_group.get(group):
            shown.append({"key": group, "title": f"{GROUP_TITLES[group]} ({len(by_group[group])})",
                          "entries": by_group[group], "open": group not in FOLDED})
    if archived:
        shown.append({"key": "archived", "title": f"{ARCHIVED_TITLE} ({len(archived)})", "entries": archived,
                      "open": False})
    return shown


def archived_entries(location, live_ids: set[str]) -> tuple[list[dict], str | None]:
    """The archive's newest copy of each id not back in the store, newest first, shaped like a report entry;
    or why the archive could not be read (the page stays usable)."""
    try:
        rules = store.load_archive(location).learnings
    except (AgentuseError, StoreFormatError, OSError) as problem:
        return [], f"The archive could not be read, so nothing can be restored from here: {problem}"
    newest = {rule.id: rule for rule in rules if rule.id not in live_ids}  # later copies win
    return [{"record": rule.model_dump(mode="json"), "state": "archived", "group": "archived"}
            for rule in reversed(newest.values())], None


def filter_options(entries: list) -> dict[str, list[str]]:
    """The values present on the page, for the filter box's selects."""
    def values(key: str) -> list[str]:
        return sorted({str(_record(e).get(key) or "legacy") for e in entries})
    return {"category": values("category"), "src": values("src"), "ch": values("ch")}


def _record(entry) -> dict:
    return entry.record if isinstance(entry, EntryView) else entry["record"]


def states(entry) -> list[str]:
    """Every state word a rule answers to in the filter: its badge and why it is dormant."""
    if not isinstance(entry, EntryView):
        return ["archived"]
    return badges(entry)


def badges(entry: EntryView) -> list[str]:
    """The state badge, then why a dormant rule is dormant (a stale rule is dormant *and* stale). "ready to
    make permanent" stays in the meta line, worded as the CLI words it."""
    why = {"stale": ["stale"], "outside_cap": ["outside the cap"], "held": ["held: apply is off"]}
    return [entry.state, *why.get(entry.group, [])]


def learnings(request: Request) -> Response:
    key, path = agent_key(request)
    agent, location, report = describe(path)
    archived, archive_problem = archived_entries(location, {e.record["id"] for e in report.entries})
    shown = groups(report, archived)
    last = last_tidy(location)
    return render(
        request,
        "learnings.html",
        key=key,
        report=report,
        groups=shown,
        badges=badges,
        states=states,
        meta=meta_line,
        figures=figures_line,
        bar=outcome_bar,
        options=filter_options([e for g in shown for e in g["entries"]]),
        chart=in_force_chart(load_index(location), report.cap),
        block=read_block(agent.text, filename=str(agent.path)) or [],
        stranded=stranded_lines(report),
        outside_cap=notices.outside_cap(report, key, last, request.app.state.jobs),
        archive_problem=archive_problem,
        file=display_path(report.file),
        last=last,
        job=request.app.state.jobs.current(key),
        failed=_failed(request.app.state.jobs.latest(key), last),
    )


def _failed(job, last):
    """The agent's newest tidy-up here when it failed, and no tidy-up (from a terminal, say) has been
    recorded since: whoever left its page (it says leaving does not stop it) learns it here."""
    if job is None or job.status != "failed" or (last is not None and last.when >= job.started):
        return None
    return job


def learnings_json(request: Request) -> Response:
    """What `agentuse learnings <agent-file> --json` prints."""
    _, _, report = describe(agent_key(request)[1])
    return JSONResponse(report.model_dump(mode="json"))


@csrf_protected
async def add(request: Request) -> Response:
    key, path = agent_key(request)
    text = str((await read_form(request)).get("text", "")).strip()
    if not text:
        return redirect(request, agent_url(key), kind="error", lines=["Write the correction first: the box was empty."])
    lines = await run_in_threadpool(lambda: actions.add_learning(path, text, agent_arg=key))
    return redirect(request, agent_url(key), lines=lines)


@csrf_protected
async def discard(request: Request) -> Response:
    (key, path), rule_id = agent_key(request), request.path_params["rule_id"]
    location = store.locate(path)
    line = await run_in_threadpool(actions.discard, location, rule_id)
    return redirect(request, agent_url(key), lines=[line])


@csrf_protected
async def restore(request: Request) -> Response:
    (key, path), rule_id = agent_key(request), request.path_params["rule_id"]
    lines = await run_in_threadpool(lambda: actions.restore(path, rule_id, agent_arg=key))
    return redirect(request, agent_url(key) + f"#rule-{rule_id}", lines=lines)


@csrf_protected
async def edit(request: Request) -> Response:
    (key, path), rule_id = agent_key(request), request.path_params["rule_id"]
    text = str((await read_form(request)).get("text", "")).strip()
    if not text:
        return redirect(request, agent_url(key), kind="error",
                        lines=["Write the new wording first: the edit box was empty, so the rule was left as it is."])
    lines = await run_in_threadpool(lambda: actions.edit_learning(path, rule_id, text, agent_arg=key))
    return redirect(request, agent_url(key), lines=lines)


ROUTES = [
    Route("/", index, name="agents"),
    Route("/agents/{key:path}/learnings.json", learnings_json, name="learnings_json"),
    Route("/agents/{key:path}/learnings/add", add, methods=["POST"], name="learnings_add"),
    Route("/agents/{key:path}/learnings/{rule_id}/discard", discard, methods=["POST"], name="learnings_discard"),
    Route("/agents/{key:path}/learnings/{rule_id}/restore", restore, methods=["POST"], name="learnings_restore"),
    Route("/agents/{key:path}/learnings/{rule_id}/edit", edit, methods=["POST"], name="learnings_edit"),
    Route("/agents/{key:path}/learnings", learnings, name="learnings"),
]
