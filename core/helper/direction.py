"""A span run the other way: "sort from A to Z" / "from Z to A", "translate from Spanish into English" /
"from English into Spanish". The two rules share every word, so a word reader takes them for one; the
direction is what differs. Between two values of one setting (letters or numbers, superlatives of a ranking,
members of a closed set) the two cannot both be followed: a contradiction. Between two places or parties
("forward calls from the desk to the manager" / "from the manager to the desk") both directions can hold:
a near-miss. Either way never a duplicate. `offline_judge.py` decides with it.
"""

from __future__ import annotations

from functools import lru_cache

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.vocabulary import alternative_group, canon
from agentuse.core.helper.wording import normalize
from agentuse.core.lazy_regex import lazy

# "from X to Y": up to three words each end, the second ending at a break or a scope word.
_SPAN = lazy(r"\bfrom\s+((?:[\w'-]+\s+){0,2}?[\w'-]+)\s+(?:to|into|through)\s+((?:[\w'-]+\s+){0,2}?[\w'-]+?)"
             r"(?=\s*(?:[.,;:!?)]|$|\s(?:on|in|at|for|by|when|if|before|after|every|each|and|or|with)\b))")


@lru_cache(maxsize=4096)
def _ends(text: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The content words of a rule's "from X to Y" span, as canonical forms, or None."""
    m = _SPAN.search(normalize(text))
    if not m:
        return None
    start, end = (frozenset(canon(w) for w in part.split() if len(w) == 1 or w not in lx.STOPWORDS) for part in m.groups())
    return (start, end) if start and end and not start & end else None


def run_the_other_way(a_text: str, b_text: str) -> str | None:
    """"values" when the two rules run one span the opposite way between two values of one setting,
    "places" when between anything else, None when they do not."""
    ends_a, ends_b = _ends(a_text), _ends(b_text)
    if ends_a is None or ends_b is None or ends_a != (ends_b[1], ends_b[0]):
        return None
    return "values" if all(map(_a_value, ends_a[0] | ends_a[1])) else "places"


def _a_value(word: str) -> bool:
    """A letter or number, a superlative of a ranking ("strongest"), or a member of a closed set."""
    return len(word) == 1 or word.isdigit() or word.endswith("est") or alternative_group(word) is not None
