"""One thing given free on one side and charged for on the other, two values of its price: "offer free parking
to visitors" / "charge visitors for parking", "hand out the map for free" / "charge two dollars for the map".

The free side says so in a word or phrase ("free", "for free", "at no cost", "complimentary"); the charging
side's own verb is "charge", asked for, or it names a price. Nothing else may differ but the verbs, the price
and the words saying it: "charge staff for parking" names another party, a near-miss. A rule against
charging ("don't charge for gift wrapping") says the same as "free" and is not read here. `offline_judge.py`
decides with it.
"""

from __future__ import annotations

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.similarity import Analysis, canon
from agentuse.core.helper.vocabulary import alternative_group
from agentuse.core.lazy_regex import lazy

_FREE = lazy(r"\b(?:free|at no (?:extra )?(?:cost|charge)|complimentary|gratis)\b")
_CHARGE = canon("charge")
_PRICE_WORDS = frozenset(canon(w) for w in ("free", "charge", "fee", "cost", "price", "complimentary"))
_CURRENCY = alternative_group(canon("euro"))


def free_against_charged(a: Analysis, b: Analysis, o: Overlap) -> str | None:
    """What is free on one side and charged for on the other, or None."""
    for free, charged in ((a, b), (b, a)):
        if not _FREE.search(free.text.lower()) or _FREE.search(charged.text.lower()):
            continue
        lead = next((t for t in charged.terms if t.lead and t.role == "main"), None)
        if lead is None or lead.negative or (lead.word != _CHARGE and not charged.values):
            continue
        if free.values or any(t.negative for t in free.terms + charged.terms):
            continue
        rest = [t for t in o.left_a + o.left_b if t.weight >= 1 and not (t.lead and t.role == "main")
                and t.word not in _PRICE_WORDS and alternative_group(t.word) != _CURRENCY]
        things = [x.word for x, _ in o.shared if x.weight >= 1 and x.word not in _PRICE_WORDS]
        if not rest and things:
            return ", ".join(things)
    return None
