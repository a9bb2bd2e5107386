"""What a tidy-up reports: progress lines while it runs, and the result after (spec: Tidying up).

One model, rendered here for the terminal and dumped as JSON for `--json` and the web page, so the
surfaces never disagree about what happened.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from agentuse.core.graduate import BlockEdit
from agentuse.core.overcap import OverCap
from agentuse.core.overcap import render as render_overcap
from agentuse.core.tidy_state import Change, Counts
from agentuse.core.model_defaults import empty_list

NOTHING = "Nothing to tidy up"


class Progress(BaseModel):
    """One progress event; the web page counts rules and names the pass from the same events.

    Every kind but "written" is one of the spec's progress lines. "written" is one stage-2 rule finished
    (`count` of the stage's `of` so far): the web page counts "the rules as it writes them" from it, and
    the terminal prints nothing for it, because the spec's terminal output has no per-rule line. "block" is
    printed only by a tidy-up with no learnings to read (its agent's rules are all in the permanent block),
    which would otherwise print nothing before its result."""

    kind: Literal["reading", "rewriting", "written", "block", "writing"]
    pass_no: int = 1
    count: int = 0
    of: int = 0  # "written": how many rules the stage writes

    @property
    def per_rule(self) -> bool:
        return self.kind == "written"

    @property
    def line(self) -> str:
        prefix = f"pass {self.pass_no}: " if self.pass_no > 1 and self.kind not in ("block", "writing") else ""
        if self.kind == "reading":
            return f"{prefix}reading {self.count} learnings to see what repeats…"
        if self.kind == "rewriting":
            return f"{prefix}rewriting {self.count} {'rule' if self.count == 1 else 'rules'}…"
        if self.kind == "written":
            return f"{prefix}{self.count} of {self.of} written"
        if self.kind == "block":  # the permanent block is read once, after the passes
            return f"reading the {self.count} rules of the permanent block to see what overlaps…"
        return "writing both files…"


class PassInfo(BaseModel):
    pass_no: int
    read: int  # rules in force when the pass began
    groups: int  # stage-1 calls
    moves: int  # moves accepted in code
    rewrites: int  # stage-2 calls (each followed by one audit)
    freed: int  # slots this pass freed


class TidyResult(BaseModel):
    agent_file: str
    learnings_file: str
    nothing: bool = False  # nothing qualified: no model call was made and nothing written
    dry_run: bool = False
    counts: Counts = Field(default_factory=Counts)
    passes: list[PassInfo] = Field(default_factory=empty_list)
    permanent: list[str] = Field(default_factory=empty_list, description="titles of the rules made permanent")
    block_edits: list[BlockEdit] = Field(default_factory=empty_list)
    block_discarded: str | None = None
    graduation_skipped: str | None = None
    overcap: OverCap | None = None
    changes: list[Change] = Field(default_factory=empty_list)
    notes: list[str] = Field(default_factory=empty_list)
    model_calls: int = 0
    # Model calls that failed for good (their part was left as it was, and a note says so): the CLI exits 1.
    failed_calls: int = 0
    written: bool = False
    snapshot: str | None = None
    diffs: dict[str, str] = Field(default_factory=dict, description="unified diffs: learnings file, agent file")

    @property
    def summary(self) -> str:
        c = self.counts
        return (f"{c.merged} merged, {c.rewritten} rewritten, {c.retired} retired, {c.quarantined} quarantined, "
                f"{c.permanent} now permanent — {c.before} → {c.after} in force")


def _plan_lines(result: TidyResult) -> list[str]:
    lines = []
    for change in result.changes:
        if change.kind in ("merged", "rewritten", "compressed"):
            extra = f" (from {len(change.ids)} rules)" if change.kind == "merged" else ""
            lines.append(f"  pass {change.pass_no}: {change.kind} \"{change.title}\"{extra}")
        elif change.kind == "retired":
            lines.append(f"  pass {change.pass_no}: retire \"{change.title}\" — {change.reason}")
        elif change.kind == "quarantined":
            lines.append(f"  quarantine \"{change.title}\" — {change.reason}")
        elif change.kind == "requarantined":
            lines.append(f"  keep \"{change.title}\" quarantined — {change.reason}")
        elif change.kind == "released":
            lines.append(f"  release \"{change.title}\" from quarantine — it passes the vet now")
        elif change.kind == "restored":
            lines.append(f"  pass {change.pass_no}: kept \"{change.title}\" as it was — the rewrite no longer "
                         f"carried: {change.reason}")
        elif change.kind == "graduated":
            lines.append(f"  make permanent \"{change.title}\"")
    return lines


def _edit_lines(edits: list[BlockEdit]) -> list[str]:
    marks = {"added": "+", "combined": "~", "reworded": "~", "dropped": "-", "kept back": "="}
    lines = []
    for edit in edits:
        first, *rest = edit.text.split("\n")
        lines.append(f"  {marks[edit.kind]} [{edit.category}] {first}")
        lines += [f"      {line}" for line in rest if line.strip()]
        if edit.kind in ("combined", "reworded"):
            count = len(edit.sources)
            lines.append(f"      ({edit.kind} from {count} rule{'s' if count != 1 else ''})")
        elif edit.kind == "dropped":
            lines.append(f"      (dropped: {edit.reason})")
        elif edit.kind == "kept back":
            lines.append(f"      (kept as written; the rewrite no longer carried: {edit.reason})")
    return lines


def _revisit_lines(counts: Counts) -> list[str]:
    """Quarantined rules whose reason no longer held, re-vetted (spec: Quarantine)."""
    lines = []
    if counts.released:
        lines.append(f"  {counts.released} quarantined learning(s) re-vetted and released: they inject again.")
    if counts.requarantined:
        lines.append(f"  {counts.requarantined} quarantined learning(s) re-vetted and still quarantined, "
                     "with the reason as it stands now.")
    return [""] + lines if lines else []


def render(result: TidyResult) -> list[str]:
    """The lines after the progress: Done, the summary, what became permanent, block edits, over-cap."""
    if result.nothing:
        return [NOTHING, *(f"  {n}" for n in result.notes)]
    lines = ["Plan (dry run — nothing written)" if result.dry_run else "Done", f"  {result.summary}"]
    if result.permanent:
        lines += ["", "  Now permanent in the agent file:"] + [f"    {t}" for t in result.permanent]
    stale = result.counts.restamped - result.counts.backfilled - result.counts.confirmed
    if stale:
        lines += ["", f"  {stale} stale learning(s) re-vetted and re-stamped: they inject again."]
    if result.counts.backfilled:  # spec: rules with no hash are not stale; they were injecting all along
        lines += [] if stale else [""]
        lines.append(f"  {result.counts.backfilled} learning(s) with no instruction hash vetted and stamped "
                     "against the current instructions.")
    if result.counts.confirmed:  # they were in force all along, on the offline evaluator's word
        lines += [] if stale or result.counts.backfilled else [""]
        lines.append(f"  {result.counts.confirmed} learning(s) vetted offline re-vetted by the model and confirmed.")
    lines += _revisit_lines(result.counts)
    if result.block_edits:
        lines += ["", "  Learned Guidance block:"] + _edit_lines(result.block_edits)
    for message in filter(None, [result.block_discarded, result.graduation_skipped]):
        lines += ["", f"  {message}"]
    if result.overcap:
        lines += [""] + render_overcap(result.overcap)
    if result.notes:  # a failing move proposed again in a later pass is one note, not one per pass
        lines += ["", "  Notes:"] + [f"    {n}" for n in dict.fromkeys(result.notes)]
    if result.dry_run:
        lines += ["", "Changes:"] + (_plan_lines(result) or ["  (none)"])
    if result.diffs:
        lines += ["", "Diff of both files:" if result.written else "Both files would change like this:"]
        for name, text in result.diffs.items():
            lines += ["", text.rstrip("\n") if text else f"(no change to the {name})"]
    return lines
