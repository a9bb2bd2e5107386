"""Plain-text renderings of a `Report`: the `agentuse learnings` list and the learning lines of `doctor`.
Wording follows the spec's examples."""

from __future__ import annotations

from agentuse.core.describe import EntryView, Report
from agentuse.core.effectiveness import MIN_RUNS_TO_COMPARE, RuleFigures, approval_rates
from agentuse.core.terminal_text import display_path, shell_word
from agentuse.core.learning import NEW_RULE_GRACE_DAYS, VET_OFFLINE

GROUP_TITLES = {
    "stale": "Stale — instructions changed, awaiting re-vet",
    "outside_cap": "Outside the cap — never injected until the set is folded down",
    "held": "Held back — learning.apply is not enabled, so they stay out of future prompts",
    "quarantined": "Quarantined",
    "graduated": "Graduated — now in the agent file, staged copy on its way out",
}

STALE_LINE = (
    "{n} learnings are stale: the instructions changed since they were vetted. They are held out of "
    "injection until the next capture or tidy re-vets them."
)


PROVISIONAL_LINE = "{n} vetted offline, re-vetted when a model is configured"


def provisional_lines(report: Report) -> list[str]:
    return [PROVISIONAL_LINE.format(n=report.provisional)] if report.provisional else []


def tokens(n: int) -> str:
    return f"~{n / 1000:.1f}k" if n >= 1000 else f"~{n}"


def meta_line(entry: EntryView) -> str:
    r = entry.record
    parts = [f"src:{r['src']}", f"injected:{r['injected']}", f"ch:{r['ch'] or 'legacy'}"]
    if r.get("tool"):
        parts.append(f"tool:{r['tool']}")
    if r["ok"]:
        parts.append(f"approved:{r['ok']}")
    if r["re"]:
        parts.append(f"repeated:{r['re']}")
    if r.get("vet") == VET_OFFLINE:
        parts.append("vetted offline")
    if entry.ready_to_graduate:
        parts.append("ready to make permanent")
    return " · ".join(parts) + f"  ·  {r['date']}  ·  id:{r['id']}"


def figures_line(figures: RuleFigures) -> str:
    """`in force 12 runs · 4 approved clean · 1 commented · recurred 0×`: the other outcomes when they happened,
    and `commented on about it N×` when reviewers' comments on its runs said what it says (not landing)."""
    parts = [f"in force {figures.runs} run{'' if figures.runs == 1 else 's'}",
             f"{figures.approved} approved clean", f"{figures.commented} commented"]
    parts += [f"{n} {label}" for n, label in ((figures.rejected, "rejected"), (figures.no_gate, "no gate"),
                                               (figures.pending, "awaiting review"), (figures.failed, "failed")) if n]
    if figures.commented_about:
        parts.append(f"commented on about it {figures.commented_about}×")
    if figures.recurred is not None:
        parts.append(f"recurred {figures.recurred}×")
    return " · ".join(parts)


def _entry_lines(entry: EntryView) -> list[str]:
    r = entry.record
    lines = [f"  {entry.state}  [{r['category']}] {r['title']}", f"    {meta_line(entry)}",
             f"    {figures_line(entry.figures)}"]
    if r.get("why"):
        lines.append(f"    why: {r['why']}")
    return lines


def render_learnings(report: Report) -> str:
    if not report.entries:
        # The stranded notice matters most here: an agent whose learnings all sit at the old location is
        # exactly the one that lists nothing.
        empty = [f"No learnings yet for {report.agent}.", f"learnings file: {display_path(report.file)}",
                 *([""] if report.permanent else []), *permanent_group(report)]
        return "\n".join(empty + (["", *stranded_lines(report)] if report.stranded else [])) + "\n"
    lines: list[str] = []
    by_group: dict[str, list[EntryView]] = {}
    for entry in report.entries:
        by_group.setdefault(entry.group, []).append(entry)
    if report.active or by_group.get("applied"):
        lines.append(f"Applied ({report.injected} of {report.active})")
        for entry in by_group.get("applied", []):
            lines.extend(_entry_lines(entry))
        lines.append("")
    for group, title in GROUP_TITLES.items():
        entries = by_group.get(group, [])
        if entries:
            lines.append(f"{title} ({len(entries)})")
            for entry in entries:
                lines.extend(_entry_lines(entry))
            lines.append("")
    if report.provisional:
        lines += [*provisional_lines(report), ""]
    lines += permanent_group(report)
    lines += index_lines(report)
    lines.extend(stranded_lines(report))
    return "\n".join(lines).rstrip() + "\n"


def stranded_notice(agent_key: str, legacy_path: str) -> list[str]:
    """The spec's notice for learnings at the pre-v0.17 location (`legacy_path`: relative to the project
    root). The run's warn-once text, doctor, the learnings list and the serve panel all render it here."""
    return [
        f"learnings found at the old location for {agent_key}",
        f"  {legacy_path}",
        "  No longer read. Move them:  agentuse learnings migrate --all",
    ]


def stranded_lines(report: Report) -> list[str]:
    return stranded_notice(report.agent, report.stranded) if report.stranded else []


def outside_cap_lines(report: Report, agent_arg: str) -> list[str]:
    return human_outside_cap_lines(report, agent_arg) + auto_outside_cap_lines(report)


def outside_cap_counts(report: Report) -> tuple[int, int]:
    """(people's corrections, auto-extracted rules) outside the cap."""
    outside = [e for e in report.entries if e.group == "outside_cap"]
    autos = sum(1 for e in outside if e.record["src"] == "auto")
    return len(outside) - autos, autos


def human_outside_cap_lines(report: Report, agent_arg: str) -> list[str]:
    humans, _ = outside_cap_counts(report)
    if not humans:
        return []
    return [
        f"{humans} correction(s) sit outside this agent's {report.cap}-rule limit and do NOT reach it -",
        "they could not be folded into an existing rule, and no auto-extracted rule was",
        "left to trade away.",
        f"Fold the set down: agentuse learnings tidy {shell_word(agent_arg)}",
    ]


AUTO_OUTSIDE_CAP = "{n} auto-extracted rule(s) sit outside the {cap}-rule limit and are never injected"


def auto_outside_cap_lines(report: Report) -> list[str]:
    """Only the rules a drain or a tidy-up can retire are promised it; the others say why they stay."""
    autos = [e for e in report.entries if e.group == "outside_cap" and e.record["src"] == "auto"]
    retirable = sum(1 for e in autos if e.retirable)
    kept = len(autos) - retirable
    lines = []
    if retirable:
        lines.append(AUTO_OUTSIDE_CAP.format(n=retirable, cap=report.cap) + "; the next capture or tidy retires them.")
    if kept:
        lines.append(AUTO_OUTSIDE_CAP.format(n=kept, cap=report.cap) + ", and nothing retires them yet: a new "
                     f"learning gets {NEW_RULE_GRACE_DAYS} days to prove itself, and a repeated one is rewritten, "
                     "never retired.")
    return lines


PERMANENT_TITLE = "In agent file — Learned Guidance"  # the serve panel's group of the same rules


def permanent_group(report: Report) -> list[str]:
    """The rules of the agent file's learned block, after the learnings file's groups: not in that file,
    but what the agent was taught, applied on every run (the serve panel lists them the same way)."""
    if not report.permanent:
        return []
    lines = [f"{PERMANENT_TITLE} ({len(report.permanent)})"]
    for rule in report.permanent:
        first, *rest = rule.text.split("\n")
        lines += [f"  in agent file  [{rule.category.value}] {first}", *(f"    {line}" for line in rest if line.strip())]
    return [*lines, ""]


def permanent_lines(report: Report) -> list[str]:
    if not report.permanent_rules:
        return []
    return [f"permanent block: {report.permanent_rules} rule(s) in the agent file, applied on every run"]


def render_doctor_learning(report: Report, agent_arg: str) -> list[str]:
    """The learning lines of `agentuse doctor`, in the spec's order."""
    lines = [f"learned guidelines: {report.injected} of {report.active} applied, "
             f"{tokens(report.tokens_per_request)} tokens/model request (estimate)"]
    if not report.apply:
        lines.append("apply is off: nothing is injected until learning.apply is turned back on.")
    lines += permanent_lines(report)
    if report.stale:
        lines.append(STALE_LINE.format(n=report.stale))
    lines += provisional_lines(report)
    lines.append(f"learnings file: {display_path(report.file)}")
    if report.by_channel:
        lines.append("by channel: " + ", ".join(f"{ch}:{n}" for ch, n in report.by_channel.items()))
    quarantined = [e for e in report.entries if e.group == "quarantined"]
    if quarantined:
        lines.append(f"{len(quarantined)} learnings quarantined (failed the vet, never injected):")
        for e in quarantined:
            why = f" — {e.record['why']}" if e.record.get("why") else ""
            lines.append(f"  [{e.record['category']}] {e.record['title']}{why}")
    lines += outside_cap_lines(report, agent_arg)
    lines += effectiveness_lines(report, agent_arg)
    lines += stranded_lines(report)
    return lines


def effectiveness_lines(report: Report, agent_arg: str) -> list[str]:
    """doctor's word on what the runs showed (issue 18): rules not landing (their failure recurred, or a
    reviewer commented on what they say, while they were in force), and, once runs have been counted, rules
    no run ever received. The table is `learnings stats`."""
    lines = []
    if report.not_landing:
        ids = ", ".join(e.record["id"] for e in report.not_landing)
        lines.append(f"{len(report.not_landing)} rule(s) not landing: {NOT_LANDING_WHY} ({ids}); see agentuse "
                     f"learnings stats {agent_arg}")
    if report.never_injected:
        named = ", ".join(f"{e.record['id']} ({_runs_since_added(e.figures)})" for e in report.never_injected)
        lines.append(f"{len(report.never_injected)} rule(s) never injected since they were added: {named}")
    return lines


def _runs_since_added(figures) -> str:
    n = figures.since_added
    return f"{n} counted run(s)" if figures.since_added_all else f"none of the latest {n} counted runs"


def index_lines(report: Report) -> list[str]:
    if not report.index_unreadable:
        return []
    return [f"the effectiveness index could not be read, so every rule shows 0 runs: recount it from the session "
            f"logs with: agentuse learnings stats {shell_word(display_path(report.agent_file))} --rebuild", ""]


NOT_LANDING_WHY = "their failure recurred, or a reviewer commented on what they say, while they were in force"
STATS_SORTS = ("runs", "approved", "commented", "rejected", "commented_about", "recurred", "title")
_COLUMNS = (("runs", "runs"), ("approved", "clean"), ("commented", "commented"), ("rejected", "rejected"),
            ("no_gate", "no gate"), ("pending", "awaiting"), ("failed", "failed"))


def sorted_entries(report: Report, sort: str) -> list[EntryView]:
    """Largest first for a count (a tie keeps the list's order), A to Z for the title."""
    if sort == "title":
        return sorted(report.entries, key=lambda e: e.record["title"].lower())
    return sorted(report.entries, key=lambda e: -(getattr(e.figures, sort) or 0))


def render_stats(report: Report, sort: str = "runs") -> str:
    """`agentuse learnings stats`: every rule's figures as a table, then the agent's totals."""
    if not report.entries:
        return "\n".join([f"No learnings yet for {report.agent}.", *stats_totals(report)]) + "\n"
    head = ["id      ", *(label for _, label in _COLUMNS), "about it", "recurred", "with", "without", "state", "rule"]
    rows = [head]
    for entry in sorted_entries(report, sort):
        f = entry.figures
        with_rate, without_rate = approval_rates(f, report.totals)
        rows.append([entry.record["id"], *(str(getattr(f, field)) for field, _ in _COLUMNS),
                     f"{f.commented_about}×", "-" if f.recurred is None else f"{f.recurred}×", rate_cell(with_rate), rate_cell(without_rate),
                     entry.state, entry.record["title"]])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head) - 1)]
    lines = ["  ".join([*(cell.ljust(w) for cell, w in zip(row, widths)), row[-1]]).rstrip() for row in rows]
    lines += ["", *stats_totals(report)]
    return "\n".join(lines + index_lines(report)).rstrip() + "\n"


def rate_cell(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.0%}"


def stats_totals(report: Report) -> list[str]:
    never = report.never_injected
    landing = report.not_landing
    agent = report.totals
    lines = [f"runs counted: {report.runs_counted}",
             f"approval rate: {rate_cell(agent.rate)} of {agent.reviewed} reviewed run(s) approved without a comment "
             f"(with / without each rule in the table, where each side has {MIN_RUNS_TO_COMPARE}+ reviewed runs)",
             f"rules never injected: {len(never)}" + (f" ({', '.join(e.record['id'] for e in never)})" if never else ""),
             f"rules not landing ({NOT_LANDING_WHY}): {len(landing)}"
             + (f" ({', '.join(e.record['id'] for e in landing)})" if landing else "")]
    return lines
