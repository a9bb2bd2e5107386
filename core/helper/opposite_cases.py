"""A case one rule applies in, carved out by the other: "refund the fee if the ticket is unused" against
"refund the fee unless the ticket is unused". Every word is shared, so the wording alone reads a duplicate,
but the one does the act in exactly the case the other excepts: never a duplicate (a near-miss, as "one
side's exception is the other's case" is where the two also differ in polarity).

A prohibition with an exception is a condition said the other way round ("never approve a refund without
a receipt" is "approve it only with one"), so only an exception to an act asked for counts.
`offline_judge.py` asks before any duplicate reading. Before it calls a pair a duplicate it also asks
`copy_changed`: one rule copied with a negation put in, or with two words in each other's place; and
`roles_crossed`: each rule excepting what the other asks for.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.qualifiers import tokens_of
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


def copy_changed(a: Analysis, b: Analysis) -> str | None:
    """Why a pair read as a duplicate is one rule copied with one thing changed, or None. Read only for a
    pair about to be called a duplicate: it reads the words again."""
    if negation_inserted(a, b):  # "close tickets that were resolved" / "... that were never resolved"
        return "one is the other with a negation put in"
    if arguments_swapped(a, b):  # "hire for attitude over skill" / "hire for skill over attitude"
        return "the same words, two of them in each other's place"
    return None


def negation_inserted(a: Analysis, b: Analysis) -> bool:
    """One rule the other's copy with a negation put in or taken out, word for word otherwise: "close tickets
    that were resolved" / "... that were never resolved", "posts that an editor approved" / "that no editor
    approved". Where the negation falls inside a case the reading of terms may miss it; the copy cannot."""
    words_a, words_b = tokens_of(a.text), tokens_of(b.text)
    negators_a = sum(1 for w in words_a if w in _NEGATING)
    negators_b = sum(1 for w in words_b if w in _NEGATING)
    if negators_a % 2 == negators_b % 2:
        return False
    return [w for w in words_a if w not in _NEGATING and w not in _ARTICLES] == \
        [w for w in words_b if w not in _NEGATING and w not in _ARTICLES]


_NEGATING = frozenset({"not", "no", "never", "none", "nobody", "nothing"})
_ARTICLES = frozenset({"a", "an", "the", "any", "some"})


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


def arguments_swapped(a: Analysis, b: Analysis) -> bool:
    """One rule the other with two of its words in each other's place: "hire for attitude over skill" /
    "hire for skill over attitude", "copy the manager on emails to the client" / "copy the client on emails
    to the manager", "teachers grade the students' essays" / "students grade the teachers' essays". Words
    next to each other ("spelling and grammar", "12 March") may trade places in a paraphrase; a moved phrase
    ("reply in English to customers" / "to customers in English") is more than one exchange."""
    words_a, words_b = _reading(a.text), _reading(b.text)
    if len(words_a) != len(words_b) or _CLAUSE_MARKS.findall(a.text) != _CLAUSE_MARKS.findall(b.text):
        return False  # of other lengths, or a clause moved ("the first time it appears, define it")
    apart = [i for i, (x, y) in enumerate(zip(words_a, words_b)) if x != y]
    if len(apart) != 2:
        return False
    i, j = apart
    if not (words_a[i] == words_b[j] and words_a[j] == words_b[i]):
        return False
    return j - i > 1 or _written_together(a.text, b.text, words_a[i], words_a[j])


def _written_together(text_a: str, text_b: str, x: str, y: str) -> bool:
    """Two words next to each other with nothing between them but a space, in one order in the one rule and
    the other order in the other: the parts of one value in an order ("day month year", "error log"), not
    words a conjunction or a comma joins ("spelling and grammar"), which a paraphrase may trade. A number
    beside a word ("12 March" / "March 12") is a date or amount written two ways."""
    if x.isdigit() or y.isdigit():
        return False
    return _adjacent(text_a, x, y) and _adjacent(text_b, y, x)


def _adjacent(text: str, first: str, second: str) -> bool:
    return re.search(rf"\b{re.escape(first)}\s+{re.escape(second)}\b", text.lower()) is not None


def roles_crossed(o: Overlap) -> str | None:
    """The shared words one rule asks for and the other excepts, when each excepts something the other asks
    for: "translate headlines but not body text" / "translate body text but not headlines". The words are
    all shared, so only their roles tell the two apart, and neither can be followed with the other."""
    asked_by_a = [x.word for x, y in o.shared if max(x.weight, y.weight) >= 1 and (x.role, y.role) == ("main", "exception")]
    asked_by_b = [x.word for x, y in o.shared if max(x.weight, y.weight) >= 1 and (x.role, y.role) == ("exception", "main")]
    return ", ".join(asked_by_a + asked_by_b) if asked_by_a and asked_by_b else None


@lru_cache(maxsize=8192)  # a tidy-up compares each rule with every other
def _reading(text: str) -> tuple[str, ...]:
    """A text's words in order, fillers left out, prepositions and connectives kept (they say what role
    the next word has), and a possessive marked after its owner."""
    owners = set(_OWNER.findall(text.lower())) | set(_OWNERS.findall(text.lower()))
    out: list[str] = []
    for word in tokens_of(text):  # the normalized words, remembered by the qualifier reading before this
        if word in lx.STOPWORDS and word not in _PHRASE_OPENERS:
            continue
        out.append(word)
        if word in owners:
            out.append("'s")
    return tuple(out)


_OWNER = lazy(r"\b([a-z][a-z-]*)['\u2019]s\b")
_OWNERS = lazy(r"\b([a-z][a-z-]*s)['\u2019](?=\s|$|[,.;:!?])")
_CLAUSE_MARKS = lazy(r"[,;:]")
_PHRASE_OPENERS = frozenset("""
in on at to for from with without by via over above below under before after into onto about of during
if when whenever unless until once while then than rather instead except
""".split())
