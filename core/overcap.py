"""Why a tidy-up ended still over the cap (spec: When it ends still over the cap).

Ending over the cap is a normal ending for a well-used agent, not a failure, so the result accounts for
every learning still in force: each one is given exactly one reason, so the counts add up to the number
in force and nothing is unaccounted for. When pressing again genuinely would get further (the five passes
ran out, or a group could not be planned) the heading says so instead.
"""

from __future__ import annotations

import textwrap

from pydantic import BaseModel, Field

from agentuse.core.learning import (
    GRADUATE_AFTER_APPROVED_RUNS,
    GRADUATE_AFTER_INJECTED_RUNS,
    NEW_RULE_GRACE_DAYS,
    TIDY_MAX_PASSES,
    Channel,
    Learning,
)
from agentuse.core.ranking import graduation_eligible, runs_to_graduation, within_grace
from agentuse.core.tidy_state import TidyState
from agentuse.core.model_defaults import empty_list

WIDTH = 80

# In the order a rule is assigned: the first reason that applies is the one it is counted under.
UNVETTED = "are stale and could not be re-vetted this time, so they are held out until the next tidy-up"
UNPLANNED = "were in a group of learnings that could not be planned"
NOT_WRITABLE = "have proven themselves, but the agent file is not writable, so they cannot move into it"
TOOL_ERRORS = "are tool-error fixes, one per failure mode, and those are never merged as free text"
GRACE = (f"are less than {NEW_RULE_GRACE_DAYS} days old, and a new learning gets that long to prove itself "
         "before it can be retired")
DIFFERENT = "say different things, so there is nothing left to merge them into"
# The same reasons for a count of one.
SINGULAR = {
    UNVETTED: "is stale and could not be re-vetted this time, so it is held out until the next tidy-up",
    UNPLANNED: "was in a group of learnings that could not be planned",
    NOT_WRITABLE: "has proven itself, but the agent file is not writable, so it cannot move into it",
    TOOL_ERRORS: "is a tool-error fix, one per failure mode, and those are never merged as free text",
    GRACE: (f"is less than {NEW_RULE_GRACE_DAYS} days old, and a new learning gets that long to prove itself "
            "before it can be retired"),
    DIFFERENT: "says something different, so there is nothing left to merge it into",
}


class Reason(BaseModel):
    count: int
    text: str


class OverCap(BaseModel):
    over: int
    in_force: int
    cap: int
    further: str | None = None  # set when another tidy-up would get further
    reasons: list[Reason] = Field(default_factory=empty_list)
    graduation: str | None = None

    @property
    def accounted(self) -> int:
        return sum(r.count for r in self.reasons)


def _reason(state: TidyState, rule: Learning, graduation_skipped: bool) -> str:
    if rule.id in state.unvetted or state.is_stale(rule):
        return UNVETTED
    if rule.id in state.unplanned:
        return UNPLANNED
    if graduation_skipped and graduation_eligible(rule):
        return NOT_WRITABLE
    if rule.ch is Channel.tool_errors:
        return TOOL_ERRORS
    if within_grace(rule, state.today):
        return GRACE
    return DIFFERENT


def explain(state: TidyState, *, passes: int, last_freed: int, graduation_skipped: bool) -> OverCap | None:
    rules = state.in_force()
    if len(rules) <= state.cap:
        return None
    order = [UNVETTED, UNPLANNED, NOT_WRITABLE, TOOL_ERRORS, GRACE, DIFFERENT]
    tally = {text: 0 for text in order}
    for rule in rules:
        tally[_reason(state, rule, graduation_skipped)] += 1
    # Largest first, as the spec lists them.
    reasons = sorted((Reason(count=n, text=t) for t, n in tally.items() if n), key=lambda r: -r.count)
    over = len(rules) - state.cap
    further = None
    if tally[UNPLANNED]:
        further = (f"Still {over} over the cap, but a group of learnings could not be planned, so tidying up "
                   "again would get further.")
    elif passes >= TIDY_MAX_PASSES and last_freed > 0:
        further = (f"Still {over} over the cap after {TIDY_MAX_PASSES} passes, and the last one still freed "
                   f"{last_freed}, so tidying up again would get further.")
    return OverCap(over=over, in_force=len(rules), cap=state.cap, further=further, reasons=reasons,
                   graduation=_graduation(rules, graduation_skipped))


def _graduation(rules: list[Learning], graduation_skipped: bool) -> str | None:
    waiting = [r for r in rules if not graduation_eligible(r)]
    if not waiting or (graduation_skipped and len(waiting) < len(rules)):
        return None
    # Closest = furthest along either path, as a share of its threshold (6 of 10 runs beats 1 of 3).
    def share(rule: Learning) -> tuple[float, float]:
        by_ok, by_runs = rule.ok / GRADUATE_AFTER_APPROVED_RUNS, rule.injected / GRADUATE_AFTER_INJECTED_RUNS
        return max(by_ok, by_runs), -runs_to_graduation(rule)

    closest = max(waiting, key=share)
    via_ok = closest.ok and closest.ok / GRADUATE_AFTER_APPROVED_RUNS >= closest.injected / GRADUATE_AFTER_INJECTED_RUNS
    progress = (f"has been approved without a comment in {closest.ok}" if via_ok
                else f"has been applied in {closest.injected}")
    return (f"None of the corrections still in force can move into the agent file yet. That takes "
            f"{GRADUATE_AFTER_APPROVED_RUNS} runs approved without a comment, or {GRADUATE_AFTER_INJECTED_RUNS} "
            f"runs in force; the closest of them {progress}. They become eligible on their own as the agent "
            f"keeps running.")


def heading(report: OverCap) -> str:
    return report.further or f"Still {report.over} over the cap, and that is as far as tidying up can take it."


def reason_text(reason: Reason) -> str:
    return SINGULAR.get(reason.text, reason.text) if reason.count == 1 else reason.text


def render(report: OverCap, indent: str = "  ") -> list[str]:
    """The spec's layout: heading, the reasons with right-aligned counts, then the graduation paragraph."""
    lines = textwrap.wrap(heading(report), WIDTH, initial_indent=indent, subsequent_indent=indent)
    lines.append(f"{indent}The rest are still there for a reason:")
    width = max(len(str(r.count)) for r in report.reasons)
    for r in report.reasons:
        first = f"{indent}  {r.count:>{width}} "
        lines += textwrap.wrap(reason_text(r), WIDTH, initial_indent=first, subsequent_indent=" " * len(first))
    if report.graduation:
        lines.append("")
        lines += textwrap.wrap(report.graduation, WIDTH, initial_indent=indent, subsequent_indent=indent)
    return lines
