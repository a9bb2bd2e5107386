"""Precedence, the cap, and what a run receives (spec: How Application Works, An agent keeps 15 rules).

Only active rules compete for the cap. Precedence: rules saved by hand (src manual), then reviewer
comments (approval), then self-extracted (auto); the most recent first inside each group; a later
position in the file breaks ties (it was written later).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from agentuse.core.learning import (
    GRADUATE_AFTER_APPROVED_RUNS,
    GRADUATE_AFTER_INJECTED_RUNS,
    NEW_RULE_GRACE_DAYS,
    Learning,
    Source,
    State,
)

_SOURCE_RANK = {Source.manual: 0, Source.approval: 1, Source.auto: 2}


_DAYS = date.max.toordinal() + 1  # _negated_date(...) + _DAYS is in 1.._DAYS


def rank(learnings: list[Learning]) -> list[Learning]:
    """Active rules in precedence order (strongest first). Other states are not ranked."""
    # The order of (source rank, negated date, -position), as one int per rule: ints are not containers,
    # so ranking a large store allocates nothing the garbage collector must then walk (tuples did: after
    # a parse of 100,000 records, a full collection over all of them). A store shares few dates, so each
    # is read once.
    days: dict[str, int] = {}
    size = len(learnings)
    keys = []
    for i, rule in enumerate(learnings):
        if rule.state is State.active:
            when = days.get(rule.date)
            if when is None:
                when = days[rule.date] = _negated_date(rule.date) + _DAYS
            keys.append(((_SOURCE_RANK[rule.src] * (_DAYS + 1) + when) * size) + size - 1 - i)
    keys.sort()
    return [learnings[size - 1 - key % size] for key in keys]


def _negated_date(text: str) -> int:
    try:
        return -date.fromisoformat(text).toordinal()
    except ValueError:
        return 0  # an unreadable date ranks as oldest rather than failing a run


@dataclass
class Selection:
    """Every stored rule sorted into exactly one group, so the counts always add up. A plain dataclass: it
    only sorts records already validated, never crosses a boundary (what is shown is describe's Report)."""

    applied: list[Learning] = field(default_factory=list)  # injected on the next run
    held: list[Learning] = field(default_factory=list)  # in the cap but apply: false
    outside_cap: list[Learning] = field(default_factory=list)
    stale: list[Learning] = field(default_factory=list)
    quarantined: list[Learning] = field(default_factory=list)
    graduated: list[Learning] = field(default_factory=list)

    @property
    def active(self) -> int:
        """Rules in force: everything active, whether or not it reaches the model."""
        return len(self.applied) + len(self.held) + len(self.outside_cap) + len(self.stale)

    @property
    def dormant(self) -> list[Learning]:
        """Active rules that do not reach the next run."""
        return self.held + self.outside_cap + self.stale


def select(learnings: list[Learning], *, cap: int, current_ih: str | None, apply: bool = True) -> Selection:
    """Sort the store into groups. Stale rules are held out before the cap is applied."""
    selection = Selection()
    fresh: list[Learning] = []
    for rule in learnings:
        if rule.state is State.quarantined:
            selection.quarantined.append(rule)
        elif rule.state is State.graduated:
            selection.graduated.append(rule)
        elif rule.state is State.active:
            if rule.stale_against(current_ih):
                selection.stale.append(rule)
            else:
                fresh.append(rule)
    ranked = rank(fresh)
    in_cap, selection.outside_cap = ranked[:cap], ranked[cap:]
    if apply:
        selection.applied = in_cap
    else:
        selection.held = in_cap
    return selection


def graduation_eligible(rule: Learning) -> bool:
    """Repeated by a person, or in force across 3 uncommented approvals, or 10 runs. Authorship alone
    never qualifies."""
    return rule.re > 0 or rule.ok >= GRADUATE_AFTER_APPROVED_RUNS or rule.injected >= GRADUATE_AFTER_INJECTED_RUNS


def runs_to_graduation(rule: Learning) -> int:
    """How many more runs the closest path to graduation needs (0 when eligible)."""
    if graduation_eligible(rule):
        return 0
    return min(GRADUATE_AFTER_APPROVED_RUNS - rule.ok, GRADUATE_AFTER_INJECTED_RUNS - rule.injected)


def within_grace(rule: Learning, today: date) -> bool:
    """A new learning gets 14 days to prove itself before it can be retired."""
    try:
        age = (today - date.fromisoformat(rule.date)).days
    except ValueError:
        return False
    return age < NEW_RULE_GRACE_DAYS


def worth(rule: Learning) -> tuple:
    """What a rule has earned, compared in this order (a trade keeps the better of two rules): who wrote it
    (a person's rule, then a reviewer's, then a model's), how often a person repeated it, how many runs it
    was in force for that were approved without a comment, how many runs it has been in force for (capped
    at the 10 that qualify it for graduation: surviving is evidence, but weaker), the confidence it was
    captured with, then how recent it is. Two rules equal on all of these are worth the same; the one
    already in the set keeps its place."""
    return (-_SOURCE_RANK[rule.src], rule.re, rule.ok, min(rule.injected, GRADUATE_AFTER_INJECTED_RUNS),
            rule.confidence or 0.0, -_negated_date(rule.date))


def tradeable(rule: Learning, today: date) -> bool:
    """May be retired to make room (a trade or the drain): an auto rule never repeated, past its 14-day grace."""
    return evictable(rule) and not within_grace(rule, today)


def evictable(rule: Learning) -> bool:
    """Never evicted: a rule a person wrote or approved, and a rule a person repeated."""
    return rule.state is State.active and not rule.is_human and rule.re == 0
