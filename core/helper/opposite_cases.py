"""A case one rule applies in, carved out by the other: "refund the fee if the ticket is unused" against
"refund the fee unless the ticket is unused". Every word is shared, so the wording alone reads a duplicate,
but the one does the act in exactly the case the other excepts: never a duplicate (a near-miss, as "one
side's exception is the other's case" is where the two also differ in polarity).

A prohibition with an exception is a condition said the other way round ("never approve a refund without
a receipt" is "approve it only with one"), so only an exception to an act asked for counts.
`offline_judge.py` asks before any duplicate reading.
"""

from __future__ import annotations

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.similarity import Analysis
from agentuse.core.helper.wording import normalize
from agentuse.core.lazy_regex import lazy


def case_against_exception(o: Overlap, a: Analysis, b: Analysis) -> str | None:
    """The shared words one rule makes its condition and the other its exception ("unless", "except") to an
    act it asks for; None when there are none."""
    words = [x.word for x, y in o.shared
             if max(x.weight, y.weight) >= 1 and {x.role, y.role} == {"condition", "exception"}
             and _excepts(o, a if x.role == "exception" else b, excepting_a=x.role == "exception")]
    return ", ".join(words) if words else None


def _excepts(o: Overlap, excepting: Analysis, excepting_a: bool) -> bool:
    """Whether the side with the exception asks for its act (no main term of it asked against) and carves
    the case out ("unless", "except"), rather than making it the act's gate ("never X without Y" is read as
    X asked for with Y its exception: "X only with Y")."""
    if not _CARVING.search(normalize(excepting.text)) or _GATE.search(normalize(excepting.text)):
        return False
    terms = [x if excepting_a else y for x, y in o.shared] + (o.left_a if excepting_a else o.left_b)
    return not any(t.negative for t in terms if t.role == "main")


_CARVING = lazy(r"\b(?:unless|except)\b")
_GATE = lazy(r"\bwithout\b")
