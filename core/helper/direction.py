"""A span run the other way: "sort from A to Z" / "from Z to A", "translate from Spanish into English" /
"from English into Spanish". The two rules share every word, so a word reader takes them for one; the
direction is what differs. Between two values of one setting (letters or numbers, superlatives of a ranking,
members of a closed set) the two cannot both be followed: a contradiction. Between two places or parties
("forward calls from the desk to the manager" / "from the manager to the desk") both directions can hold:
a near-miss. Either way never a duplicate. So too one thing reached "to" on one side and "from" on the
other ("back up the photos to the shared drive" / "from the shared drive"): the flow runs the other way, a
near-miss. `offline_judge.py` decides with it.
"""

from __future__ import annotations

from functools import lru_cache

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.vocabulary import alternative_group, canon, number_of
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
    "places" when between anything else or when one thing is reached "to" on one side and "from" on the
    other, None when neither."""
    ends_a, ends_b = _ends(a_text), _ends(b_text)
    if ends_a is not None and ends_b is not None and ends_a == (ends_b[1], ends_b[0]):
        return "values" if all(map(_a_value, ends_a[0] | ends_a[1])) else "places"
    to_a, from_a = _reached(a_text)
    to_b, from_b = _reached(b_text)
    return "places" if to_a & from_b or from_a & to_b else None


# Prepositions of where to and where from; the phrase after one ends at punctuation, another preposition or
# conjunction, a number, a bound, or a determiner after its noun ("to inbound leads the same day").
_TOWARD = frozenset({"to", "into", "onto", "toward", "towards"})
_AWAY = frozenset({"from"})
_ENDS = frozenset("""on in at for by when if before after every each and or with to from into onto until unless once
atmost atleast within than daily weekly monthly the a an""".split())
_TOKEN = lazy(r"[\w'-]+|[.,;:!?()]")
_PHRASE_WORDS = 3


@lru_cache(maxsize=4096)
def _reached(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The nouns a rule moves something to, and those it moves something from, as canonical forms: the last
    word of each phrase ("to the shared drive" reaches "drive"; "out of" reads as "from")."""
    tokens = _TOKEN.findall(normalize(text).replace("out of", "from"))
    to, away = set(), set()
    for i, token in enumerate(tokens):
        if token not in _TOWARD and token not in _AWAY:
            continue
        words: list[str] = []
        for word in tokens[i + 1:]:
            if not word[0].isalnum() or number_of(word) is not None or (words and word in _ENDS):
                break
            if word not in lx.STOPWORDS:
                words.append(word)
            if len(words) == _PHRASE_WORDS:
                break
        if words:
            (to if token in _TOWARD else away).add(canon(words[-1]))
    return frozenset(to), frozenset(away)


def _a_value(word: str) -> bool:
    """A letter or number, a superlative of a ranking ("strongest"), or a member of a closed set."""
    return len(word) == 1 or word.isdigit() or word.endswith("est") or alternative_group(word) is not None
