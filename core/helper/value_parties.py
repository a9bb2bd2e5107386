"""Two values, each set for its own party: "book taxis for staff up to a day ahead" / "for visitors up to a
week ahead" are two cases, both can hold, where "up to a day" / "up to a week" alone would be two values of
one setting. The party is the one word each side has of its own, in a scope phrase ("for staff", "to
tenants"), not a means ("by email") and not what the number counts ("two sentences" / "four paragraphs",
which stays a contradiction). `offline_judge.py` reads it where two values mismatch.
"""

from __future__ import annotations

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.similarity import Term
from agentuse.core.helper.vocabulary import number_of, written
from agentuse.core.helper.wording import normalize
from agentuse.core.lazy_regex import lazy

_WORD = lazy(r"[a-z0-9][a-z0-9'-]*")


def values_for_own_parties(a_text: str, b_text: str, o: Overlap) -> bool:
    """One scoped word of its own on each side, neither what a number counts: the values are per party."""
    own_a = [t for t in o.left_a if t.weight >= 1 and not t.lead]
    own_b = [t for t in o.left_b if t.weight >= 1 and not t.lead]
    if len(own_a) != 1 or len(own_b) != 1:
        return False
    return _party(own_a[0], a_text) and _party(own_b[0], b_text)


def _party(t: Term, text: str) -> bool:
    return t.scoped and not t.means and t.role == "main" and not t.negative and t.surface not in _counted(text)


def _counted(text: str) -> set[str]:
    """The stems of the words right after a number: the things it counts ("two sentences")."""
    words = _WORD.findall(normalize(text))
    return {written(w) for prev, w in zip(words, words[1:]) if number_of(prev) is not None}
