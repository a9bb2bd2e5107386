"""Before the vet: candidates of one capture that say the same thing, or what a quarantined rule says
(spec: Every candidate is vetted, Quarantine).

Two candidates of one batch that say the same thing are vetted and stored once; the other is reported as
a duplicate of it. The one kept is a person's when either is (human corrections are never dropped). Two
notes a person wrote alike are one note said twice: one is stored and the repeat is counted (`re`), as a
repeat of a stored rule is.

A candidate with the text of a quarantined rule: that rule is already set aside, with its reason. A
model's is rejected, nothing lost. So is a model's with the text of a rule in force (spec: a model-authored
duplicate is rejected): decided in code, whatever a vet would answer. A person's is stamped quarantined with the rule's reason, without a
second vet, and the write refreshes the quarantined entry (`re` + 1, new date) instead of adding a copy
(core/cap.py `admit`).

"The same" is the same normalised text (against a quarantined rule, only that). Within a batch, where a
model wrote either side, it is also what the offline evaluator calls a duplicate (core/helper/
offline_judge.py: same values, polarity, order and qualifiers, so a near-miss stays two rules). Two notes
a person wrote are matched on text only: a heuristic never folds away a person's wording. tool-errors
candidates are not screened: they dedupe by (tool, sig).
"""

from __future__ import annotations

import re
import unicodedata

from pydantic import BaseModel, Field

from agentuse.core.capture import Candidate, Disposition, Judged
from agentuse.core.helper.offline_judge import Label, compare
from agentuse.core.learning import Learning, State, Verdict
from agentuse.core.model_defaults import empty_list


# The tokens of a rule's identity: numbers with their decimal or thousands separators, words, and the
# symbols that carry meaning (a comparison, a sign, a percentage). "latency > 2 s" is not "latency < 2 s".
_KEY_TOKENS = re.compile(r"\d+(?:[.,]\d+)*|\w+|[<>=≤≥≠±%+−]|(?<!\w)-(?=\d)")


def text_key(text: str) -> str:
    """Identity of a rule's wording: case, spacing and punctuation do not count; what changes what the
    rule says (a comparison, a sign, a decimal separator) does."""
    return " ".join(_KEY_TOKENS.findall(unicodedata.normalize("NFKC", text).casefold()))


def same_rule(a: Candidate, b: Candidate) -> bool:
    if text_key(a.text) == text_key(b.text):
        return True
    if a.human and b.human:
        return False
    return compare(a.text, b.text).label is Label.duplicate


class Screened(BaseModel):
    candidates: list[Candidate]  # what goes on to the vet (and tool-errors records, which skip it)
    settled: list[Judged] = Field(default_factory=empty_list)  # decided here, never sent to the vet


def _max(a: float | None, b: float | None) -> float | None:
    return max((x for x in (a, b) if x is not None), default=None)


def dedupe(candidates: list[Candidate]) -> Screened:
    kept: list[Candidate] = []
    settled: list[Judged] = []
    for c in candidates:
        i = next((i for i, k in enumerate(kept) if c.needs_vet and k.needs_vet and same_rule(k, c)), None)
        if i is None:
            kept.append(c)
            continue
        keep, drop = (c, kept[i]) if c.human and not kept[i].human else (kept[i], c)
        if keep.human and drop.human:
            kept[i] = keep.model_copy(update={"repeats": keep.repeats + 1 + drop.repeats})
        else:
            kept[i] = keep.model_copy(update={"confidence": _max(keep.confidence, drop.confidence)})
        settled.append(Judged(candidate=drop, disposition=Disposition.duplicate, screened=True,
                              why=f'the same as "{keep.draft.title}" in this capture'))
    return Screened(candidates=kept, settled=settled)


def quarantined_twin(text: str, learnings: list[Learning]) -> Learning | None:
    key = text_key(text)
    return next((r for r in learnings if r.state is State.quarantined and text_key(r.text) == key), None)


def twin_in_force(text: str, learnings: list[Learning]) -> Learning | None:
    """An active rule of `learnings` worded as `text` (the cap's write asks about the rules stored after its
    record was planned: two identical notes at once)."""
    key = text_key(text)
    return next((r for r in learnings if r.state is State.active and text_key(r.text) == key), None)


def screen(candidates: list[Candidate], learnings: list[Learning] = ()) -> Screened:
    """What the vet is asked about, and what was settled without it. `learnings`: the store as read."""
    screened = dedupe(candidates)
    ahead: list[Candidate] = []
    for c in screened.candidates:
        twin = quarantined_twin(c.text, learnings) if c.needs_vet else None
        if twin is None and c.needs_vet and not c.human and (same := twin_in_force(c.text, learnings)):
            screened.settled.append(Judged(candidate=c, disposition=Disposition.rejected, screened=True,
                                           verdict=Verdict.duplicate,
                                           why=f'the same as the rule in force "{same.title}" (id:{same.id})'))
            continue
        if twin is None:
            ahead.append(c)
        elif c.human:
            screened.settled.append(Judged(candidate=c, disposition=Disposition.quarantined, screened=True,
                                           why=twin.why or f"the same as the quarantined rule id:{twin.id}"))
        else:
            screened.settled.append(Judged(candidate=c, disposition=Disposition.rejected, screened=True,
                                           why=f"id:{twin.id}: {twin.why or 'no reason recorded'}"))
    screened.candidates = ahead
    return screened
