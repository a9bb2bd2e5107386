"""A rewrite of the rules, worked out on one read of the store, applied to the store as it is now.

A tidy-up works in memory for minutes and `learnings --edit` leaves the file with a person for as long as
they like; meanwhile runs count injections and approvals, a person repeats a rule, a capture adds one.
None of that may be lost (spec issue: "no concurrent update is lost"). Three versions meet here: `start`
(what the rewrite read), `result` (what it wants to write) and `now` (the store as it is at commit):

- a rule the rewrite left alone is taken as it is now (counted, edited or even deleted meanwhile);
- a rule it changed keeps its version, plus every count added meanwhile;
- a rule it merged or rewrote into another id hands the counts added meanwhile to the rule that now
  carries it (`carriers`), so a repeat recorded mid-tidy lands on the merged rule;
- a rule added meanwhile is kept, at the end;
- a rule it changed or dropped that was edited or deleted meanwhile, and a rule it drops without a carrier
  that a person repeated meanwhile, are conflicts: `MergeConflict` names them and nothing is merged; a rule
  changed meanwhile into just what the rewrite makes of it (a capture's re-vet agreeing with a tidy-up's),
  or one it retires that was removed meanwhile too (a capture's drain), is not.

Undo runs the other way (`carry_back`): it puts back the rules from before a pass, and the counts runs
recorded on the pass's rules since go back with them, each to the rules the pass had carried into it.
"""

from __future__ import annotations

import re

from agentuse.core.errors import AgentuseError
from agentuse.core.learning import Learning
from agentuse.core.store_format import new_id

CONTENT = ("category", "title", "body", "state", "ih", "vet", "why")  # ih, vet: a re-vet meanwhile is an edit
COUNTERS = ("injected", "ok", "re")
# What a run's own bookkeeping writes to the store (core/inject.py: an injection, an approval's credit).
# `re` is a person repeating a rule: a capture, not a run's count.
RUN_COUNTERS = ("injected", "ok")


class MergeConflict(AgentuseError):
    """What changed meanwhile that the rewrite cannot be applied over; callers phrase the refusal."""

    def __init__(self, edited: list[str], repeated: list[str]) -> None:
        self.edited, self.repeated = edited, repeated
        super().__init__(self.names())

    def names(self) -> str:
        parts = [f'"{t}" edited meanwhile' for t in self.edited]
        parts += [f'"{t}" repeated by a person meanwhile, and this drops it' for t in self.repeated]
        return ", ".join(parts[:5]) + (" and more" if len(parts) > 5 else "")


# The archive reasons of a rule that left the store inside another (a tidy-up's merge or rewrite, a capture's or
# a note's fold): the rule named carries its cases from then on. A trade names its victim's replacement, which
# carries nothing of it, so it is worded apart ("traded for").
def merged_into(rule_id: str) -> str:
    return f"merged into {rule_id}"


def folded_into(rule_id: str) -> str:
    return f"folded into {rule_id}"


_CARRIED_BY = re.compile(r"^(?:retired: )?(?:merged|folded) into ([0-9A-Za-z]{8})$")


def carried_by(archived: Learning) -> str | None:
    """The id of the rule an archived rule was merged or folded into, if that is why it left."""
    found = _CARRIED_BY.match(archived.why or "")
    return found[1] if found else None


def content(rule: Learning) -> tuple:
    return tuple(getattr(rule, key) for key in CONTENT)


def carrier(rule_id: str, carriers: dict[str, str], final: dict[str, Learning]) -> str | None:
    """The rule in `final` that carries `rule_id` after every merge and rewrite in turn; None if none does."""
    seen = set()
    while rule_id not in final and rule_id in carriers and rule_id not in seen:
        seen.add(rule_id)
        rule_id = carriers[rule_id]
    return rule_id if rule_id in final else None


def merge(start: list[Learning], result: list[Learning], now: list[Learning], *,
          carriers: dict[str, str] | None = None) -> list[Learning]:
    """`carriers`: id of a rule the rewrite consumed -> id of the rule it produced from it (chains allowed)."""
    carriers = carriers or {}
    before = {r.id: r for r in start}
    current = {r.id: r for r in now}
    final = {r.id: r for r in result}
    edited, repeated = [], []
    handed: dict[str, dict[str, int]] = {}  # carrier id -> counts added meanwhile to the rules it carries
    for rule_id, old in before.items():
        mine = final.get(rule_id)
        if mine is not None and mine == old:
            continue  # untouched by the rewrite: whatever it is now wins, even deleted
        theirs = current.get(rule_id)
        if theirs is not None and mine is not None and content(theirs) == content(mine):
            continue  # changed meanwhile exactly as the rewrite changes it (two re-vets agreeing): no conflict
        if theirs is None and mine is None and carrier(rule_id, carriers, final) is None:
            continue  # retired by the rewrite and removed meanwhile too (a capture's drain, a discard): agreed
        if theirs is None or content(theirs) != content(old):
            edited.append(old.title)
            continue
        if mine is not None:
            continue  # changed in place: its own counts are carried below
        added = {k: getattr(theirs, k) - getattr(old, k) for k in COUNTERS}
        into = carrier(rule_id, carriers, final)
        if into is None:
            # Retired (or merged into a rule that itself left). Runs' counts on a rule leaving the set are
            # a few runs' worth; a person's repeat is the strongest evidence there is, and the plan that
            # dropped the rule never saw it. Refuse rather than keep it quietly: the counts and summary
            # shown would then be wrong, and the next pass plans with the repeat (and sharpens the rule).
            if added["re"] > 0:
                repeated.append(old.title)
            continue
        bucket = handed.setdefault(into, dict.fromkeys(COUNTERS, 0))
        for key, value in added.items():
            bucket[key] += value
    if edited or repeated:
        raise MergeConflict(edited, repeated)
    merged = []
    for rule in result:
        old = before.get(rule.id)
        if old is not None and rule == old:
            if rule.id in current:
                merged.append(current[rule.id])
            continue
        bumps = {k: getattr(rule, k) for k in COUNTERS}
        if old is not None:
            for key in COUNTERS:
                bumps[key] += getattr(current[rule.id], key) - getattr(old, key)
        for key, value in handed.get(rule.id, {}).items():
            bumps[key] += value
        merged.append(rule.model_copy(update={k: max(0, v) for k, v in bumps.items()}))
    taken = set(before) | set(final)
    for rule in now:
        if rule.id in before:
            continue
        if rule.id in final:  # added meanwhile under an id the rewrite also drew for a new rule: both stay
            rule = rule.model_copy(update={"id": new_id(taken)})
        taken.add(rule.id)
        merged.append(rule)
    return merged


def _all_but_run_counts(rule: Learning) -> tuple:
    return tuple(getattr(rule, key) for key in type(rule).model_fields if key not in RUN_COUNTERS)


def run_counts_since(written: list[Learning], now: list[Learning]) -> dict[str, dict[str, int]] | None:
    """What runs added to each rule since `written`, when that is all that changed: the same rules in the
    same order, each differing at most in RUN_COUNTERS, and none of those lower. None otherwise (a rule
    added, removed, edited, or a count taken back: a person's or a capture's doing, not a run's)."""
    if [r.id for r in written] != [r.id for r in now]:
        return None
    added = {}
    for old, new in zip(written, now):
        if _all_but_run_counts(old) != _all_but_run_counts(new):
            return None
        added[old.id] = {key: getattr(new, key) - getattr(old, key) for key in RUN_COUNTERS}
        if min(added[old.id].values()) < 0:
            return None
    return added


def carry_back(before: list[Learning], written: list[Learning], now: list[Learning], *,
               carriers: dict[str, str] | None = None) -> list[Learning] | None:
    """`before` (what undo puts back over a pass that wrote `written`), with the counts runs added since
    (`now`): each rule gets those of the rule that carries it in `written`, itself or what the pass merged
    or rewrote it into (`carriers`, as for `merge`; every source of a merge gets the merged rule's runs,
    since each run had what the source says in force). None when something other than runs' counts changed,
    or runs counted a rule that carries none of `before` (undo would lose those counts)."""
    added = run_counts_since(written, now)
    if added is None:
        return None
    final = {r.id: r for r in written}
    carrier_of = {rule.id: carrier(rule.id, carriers or {}, final) for rule in before}
    claimed = set(carrier_of.values())
    if any(any(counts.values()) for rule_id, counts in added.items() if rule_id not in claimed):
        return None
    restored = []
    for rule in before:
        counts = added.get(carrier_of[rule.id] or "")
        if counts and any(counts.values()):
            rule = rule.model_copy(update={key: getattr(rule, key) + counts[key] for key in RUN_COUNTERS})
        restored.append(rule)
    return restored
