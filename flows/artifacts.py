"""Dashboard artifacts for a capture, a remembered note and a tidy-up: a markdown summary and a table of
the agent's rules.

Published from flow `on_completion` hooks (`capture_completed`, `remember_completed`, `tidy_completed`), so
the pipelines stay free of monitoring code and artifacts exist only for real flow runs (a hook never runs
for `flow.fn`, the inline path). Keys are per agent (`capture-blog-writer`, `remember-blog-writer`,
`tidy-blog-writer`, `rules-blog-writer`), so the dashboard's Artifacts page keeps each agent's history
under one name. Every line comes from the reports the CLI prints (CaptureReport, remember's Result,
TidyResult, core/describe's Report), so the surfaces agree.

Prefect logs a hook's exception and carries on: a monitoring hiccup never fails the capture it reports.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentuse.flows.log import logger
from agentuse.flows.names import agent_name, artifact_key

if TYPE_CHECKING:  # the reports' modules are imported by the hooks that publish them: every pipeline imports this
    from agentuse.core.capture_report import CaptureReport
    from agentuse.core.remember import Result as RememberResult
    from agentuse.core.tidy_report import TidyResult

DIFF_LIMIT = 20_000  # characters of diff per file: an artifact is a summary, the snapshot has the bytes


def capture_markdown(report: CaptureReport, name: str) -> str:
    lines = [f"# Capture: {name}", "", f"**{_md(report.line)}**", ""]
    if report.session:
        lines.append(f"- session: `{report.session}`")
    lines.append(f"- channels: {', '.join(report.channels) or 'none (no automatic channel configured)'}")
    lines.append(f"- model calls: {report.model_calls}")
    if report.judged:
        lines += ["", "## Extracted and vetted", "", "| channel | candidate | outcome | why |", "|---|---|---|---|"]
        for judged in report.judged:
            candidate = judged.candidate
            lines.append(f"| {candidate.channel.value} | {_md(candidate.draft.title)} | "
                         f"{judged.disposition.value} | {_md(judged.why or '')} |")
    if report.write is not None and report.write.placed:
        lines += ["", "## Written", ""]
        for placed in report.write.placed:
            replaced = f" (replaced {', '.join(r.id for r in placed.replaced)})" if placed.replaced else ""
            lines.append(f"- {placed.how.value}: [{placed.record.category.value}] {_md(placed.record.title)}"
                         f" `id:{placed.record.id}`{replaced}")
    if report.notes:
        lines += ["", "## Notes", ""] + [f"- {_md(note)}" for note in report.notes]
    return "\n".join(lines) + "\n"


# By core.cap.Placement's values: a tidy-up declares these hooks too, and needs none of the cap's code.
REMEMBER_OUTCOMES = {"added": "saved", "folded": "saved, replacing an earlier rule",
                     "traded": "saved, retiring an auto-extracted rule to make room",
                     "outside_cap": "saved outside the cap", "repeated": "repeated"}


def remember_outcome(result: RememberResult) -> str:
    """One line for the artifact's description: what became of the note."""
    if result.placed is None:
        return "nothing saved"
    rule = result.placed.record
    how = "quarantined" if rule.state.value == "quarantined" else \
        REMEMBER_OUTCOMES.get(result.placed.how.value, result.placed.how.value)
    return f'{how}: "{_md(rule.title)}" (id:{rule.id})'


def remember_markdown(result: RememberResult, name: str, note: str = "", label: str = "") -> str:
    lines = [f"# Remember: {name}", "", f"**{remember_outcome(result)}**", ""]
    if label:
        lines.append(f"- from: `{label}`")
    if note:
        lines.append(f"- note: {_md(note)}")
    placed = result.placed
    if placed is not None:
        rule = placed.record
        lines += ["", "## Stored", "", f"- [{rule.category.value}] {_md(rule.title)} `id:{rule.id}` "
                  f"(state {rule.state.value}, src {rule.src.value}, re {rule.re})"]
        if rule.state.value == "quarantined":
            lines.append(f"- quarantined: {_md(rule.why or '(no reason recorded)')}")
        lines += [f"- replaced: [{old.category.value}] {_md(old.title)} `id:{old.id}` (archived)"
                  for old in placed.replaced]
    if result.lines:
        lines += ["", "## Output", ""] + [f"- {_md(line)}" for line in result.lines]
    return "\n".join(lines) + "\n"


def tidy_markdown(result: TidyResult, name: str) -> str:
    from agentuse.core.tidy_report import render

    # The summary without its diffs: they follow under their own headings, cut at DIFF_LIMIT.
    lines = [f"# Tidy-up: {name}", "", *_fenced("\n".join(render(result.model_copy(update={"diffs": {}}))))]
    if result.passes:
        lines += ["", "| pass | read | groups | moves | rewrites | freed |", "|---|---|---|---|---|---|"]
        lines += [f"| {p.pass_no} | {p.read} | {p.groups} | {p.moves} | {p.rewrites} | {p.freed} |"
                  for p in result.passes]
    from agentuse.core.tidy_commit import result_diffs

    for title, text in result_diffs(result).items():
        shown = text if len(text) <= DIFF_LIMIT else text[:DIFF_LIMIT] + "\n… (cut; the snapshot holds the rest)\n"
        lines += ["", f"## Diff: {title}", "", *_fenced(shown.rstrip("\n") or "(no change)", "diff")]
    return "\n".join(lines) + "\n"


def rules_table(agent_path: str) -> list[dict[str, Any]]:
    """The agent's rules grouped by state, as `agentuse learnings <agent>` lists them, with what the runs they
    were in force for showed (`agentuse learnings stats`: the same figures, from core/describe.py)."""
    from agentuse.core.describe import describe

    _, _, report = describe(Path(agent_path))
    rows = []
    for entry in report.entries:
        record = entry.record
        rows.append({"group": entry.group, "state": entry.state, "category": record.get("category"),
                     "title": record.get("title"), "src": record.get("src"), "ch": record.get("ch") or "legacy",
                     "injected": record.get("injected", 0), "ok": record.get("ok", 0), "re": record.get("re", 0),
                     "ready to make permanent": entry.ready_to_graduate, "why": record.get("why") or "",
                     "runs in force": entry.figures.runs, "approved clean": entry.figures.approved,
                     "commented": entry.figures.commented, "rejected": entry.figures.rejected,
                     "commented on about it": entry.figures.commented_about,
                     "recurred": "" if entry.figures.recurred is None else entry.figures.recurred,
                     "id": record.get("id")})
    return rows


# Rule text is a model's or a person's, and the dashboard renders an artifact as markdown: every character
# that could open a link, an image (a fetch from the viewer's browser), HTML, code, emphasis or a table cell
# is escaped, and it stays on its line (so it never starts one: no heading). `_` inside a word emphasises
# nothing, and tool names hold it (`write_file`), so it is left as it is.
_MARKDOWN = re.compile(r"([\\`*\[\]<>|])")
_BACKTICKS = re.compile(r"`+")


def _md(text: str) -> str:
    return _MARKDOWN.sub(r"\\\1", " ".join(text.split()))


def _fenced(body: str, info: str = "") -> list[str]:
    """A code block no text inside can close: its fence is longer than any backtick run in `body`."""
    fence = "`" * max(3, 1 + max((len(run) for run in _BACKTICKS.findall(body)), default=0))
    return [fence + info, body, fence]


def publish(kind: str, agent_path: str, markdown: str, description: str, *, rules: bool = True) -> list[str]:
    """Publish the summary and (unless `rules` is False) the rules table; returns the keys written."""
    from prefect.artifacts import create_markdown_artifact, create_table_artifact

    name = agent_name(agent_path)
    summary_key, rules_key = artifact_key(kind, name), artifact_key("rules", name)
    create_markdown_artifact(markdown=markdown, key=summary_key, description=description)
    if not rules:
        return [summary_key]
    create_table_artifact(table=rules_table(agent_path) or [{"group": "(no learnings)"}], key=rules_key,
                          description=f"Learnings of {name} by state, after this {kind}")
    return [summary_key, rules_key]


# ---------------------------------------------------------------- flow hooks: (flow, flow_run, state)


def capture_completed(flow: Any, flow_run: Any, state: Any) -> None:
    report: CaptureReport = state.result()
    agent_path = str(flow_run.parameters["agent"])
    name = agent_name(agent_path)
    log = logger()
    for line in report.lines:
        log.info("%s: %s", name, line)
    keys = publish("capture", agent_path, capture_markdown(report, name), report.line)
    log.info("artifacts: %s", ", ".join(keys))


def remember_completed(flow: Any, flow_run: Any, state: Any) -> None:
    result: RememberResult = state.result()
    params = flow_run.parameters
    agent_path = str(params["agent"])
    name = agent_name(agent_path)
    log = logger()
    for line in result.lines:
        log.info("%s: %s", name, line)
    markdown = remember_markdown(result, name, note=str(params.get("text") or ""), label=str(params.get("label") or ""))
    keys = publish("remember", agent_path, markdown, remember_outcome(result))
    log.info("artifacts: %s", ", ".join(keys))


def tidy_completed(flow: Any, flow_run: Any, state: Any) -> None:
    from agentuse.core.tidy_report import render

    result: TidyResult = state.result()
    agent_path = str(flow_run.parameters["agent_path"])
    name = agent_name(agent_path)
    log = logger()
    log.info("%s: %s", name, "Nothing to tidy up" if result.nothing else result.summary)
    # A dry run changed nothing: its plan goes under its own key, never over the last real tidy-up's or the
    # rules table (which would then describe files that were not written).
    kind = "tidy-dry-run" if result.dry_run else "tidy"
    keys = publish(kind, agent_path, tidy_markdown(result, name), render(result)[0] if result.nothing
                   else result.summary, rules=not result.dry_run)
    log.info("artifacts: %s", ", ".join(keys))
