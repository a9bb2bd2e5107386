"""Where and which way an act goes. "Only" in one place or means against the same act on the same thing in
another is a contradiction (`only_elsewhere`: "log meter readings only in the billing system" / "record them in a
paper notebook"), verbs of receiving counting as one act there (`one_act`: take / accept / receive / collect /
get, never for a duplicate: "take" is generic elsewhere). A span run the other way ("sort from A to Z" / "from Z
to A") or a flow reached "to" one thing on one side and "from" it on the other ("back up photos to the drive" /
"from the drive") is never a duplicate (`run_the_other_way`): between two values of one setting a
contradiction, between places or parties a near-miss. `offline_judge.py` decides with them.
"""

from __future__ import annotations

from functools import lru_cache

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.qualifiers import qualified_only, words_of
from agentuse.core.helper.similarity import Analysis, Term
from agentuse.core.helper.vocabulary import alternative_group, canon, number_of
from agentuse.core.helper.wording import normalize
from agentuse.core.lazy_regex import lazy


_RECEIVING = frozenset(canon(w) for w in ("take", "accept", "receive", "collect", "get"))


def one_act(x: str, y: str) -> bool:
    """Two canonical verbs for one act: the same, or both verbs of receiving."""
    return x == y or (x in _RECEIVING and y in _RECEIVING)


# "only" right before the phrase that says where or how: "only in the billing system", "only through the
# portal". "only after"/"only when" order or condition the act instead, and are read elsewhere.
_ONLY_BEFORE_PLACE = lazy(r"\b(?:only|solely|exclusively)\s+(?:in|on|at|through|via|by|over|from|into|using|inside)\b")


@lru_cache(maxsize=4096)
def _only_before_place(text: str) -> bool:
    norm = normalize(text)
    return any(map(norm.__contains__, ("only", "solely", "exclusively"))) and bool(_ONLY_BEFORE_PLACE.search(norm))


def only_elsewhere(a: Analysis, b: Analysis, o: Overlap) -> tuple[str, str] | None:
    """`a` restricts an act to one place or means and `b` does the same act, to the same thing, in another:
    the two places, or None."""
    if not _only_before_place(a.text) or qualified_only(words_of(b.text)):
        return None
    if a.values or b.values or a.order or b.order:
        return None  # a number or an order of steps is a case of its own
    if any(x.negative != y.negative or x.role != "main" or y.role != "main" for x, y in o.shared):
        return None
    # The act itself shared (its verb, verbs of one synonym group, or of receiving), and the thing it is done to.
    leads_left = [t for t in o.left_a + o.left_b if t.lead and t.role == "main"]
    if any(x.lead and y.lead for x, y in o.shared) and leads_left:
        return None  # a second act on one side
    if not any(x.lead and y.lead for x, y in o.shared) and not _leads_one_act(o):
        return None
    if not any(not x.lead and not _placed(x) and not _placed(y) and x.weight >= 1 for x, y in o.shared):
        return None
    own_a, own_b = _own(o.left_a), _own(o.left_b)
    if not own_a or not own_b or not all(map(_placed, own_a + own_b)):
        return None
    return " ".join(t.word for t in own_a), " ".join(t.word for t in own_b)


def _leads_one_act(o: Overlap) -> bool:
    """Each side's own verb left over, the two verbs of one act ("collect" / "take" RSVPs)."""
    leads_a = [t.word for t in o.left_a if t.lead and t.role == "main"]
    leads_b = [t.word for t in o.left_b if t.lead and t.role == "main"]
    return len(leads_a) == len(leads_b) == 1 and one_act(leads_a[0], leads_b[0])


def _own(left: list[Term]) -> list[Term]:
    return [t for t in left if t.weight >= 1 and not (t.lead and t.role == "main")]


def _placed(t: Term) -> bool:
    """A term inside a place or means phrase, asked for, in the instruction itself."""
    return (t.scoped or bool(t.means)) and t.role == "main" and not t.negative and not t.lead


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
