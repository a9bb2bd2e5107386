"""The offline evaluator's vocabulary: each word's canonical form, the closed sets of values it may be one
of, and how much a word weighs in a comparison.

Built once from the word lists in `lexicon.py` over the stems of `morphology.py`: "publishing" and
"release" are read as "publish", "weekly" as one member of the frequencies, "omit" as "do not include".
`similarity.analyze` reads rules with it; `overlap.py` and `offline_judge.py` compare what it read.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.morphology import stem


def _canon_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for group in lx.SYNONYMS:
        words = group.split()
        for word in words:
            table.setdefault(stem(word), stem(words[0]))
    return table


_CANON = _canon_table()
_ALT = {stem(w): i for i, group in enumerate(lx.ALTERNATIVES) for w in group.split()}
# Also under the canonical form a term carries: "active" is read as "enable" ("activate").
_ALT.update({_CANON[k]: i for k, i in list(_ALT.items()) if _CANON.get(k, k) not in _ALT})
# Read as their canonical verb: "hide" is "do not show", and "show" is read as "include".
NEG_VERBS = {stem(k): _CANON.get(stem(v), stem(v)) for k, v in lx.NEGATED_VERBS.items()}
OMISSION_TARGETS = frozenset(_CANON.get(stem(w), stem(w)) for w in lx.OMISSION_TARGETS)
STOP = frozenset(lx.STOPWORDS)
GENERIC = frozenset(stem(w) for w in lx.GENERIC)


@lru_cache(maxsize=1 << 15)  # a tidy-up reads the same few hundred words in every rule, part and pair
def written(word: str) -> str:
    """A word as written, stemmed but not read through a synonym group ("show", where `canon` gives "include")."""
    return stem(word)


@lru_cache(maxsize=1 << 15)
def canon(word: str) -> str:
    """A word's canonical form: its stem, read as the first word of its synonym group."""
    s = written(word)
    return _CANON.get(s, s)


_PLACEHOLDERS = frozenset(canon(w) for w in lx.PLACEHOLDERS)
def alternative_group(term: str) -> int | None:
    """The closed set of values a canonical word is one of (lexicon.ALTERNATIVES), or None."""
    return _ALT.get(term)


_SCALES = frozenset(_ALT[stem(g.split()[0])] for g in lx.SCALES)


def is_scale(group: int | None) -> bool:
    """A group of adjectives of one scale ("short long"): one of them in a scope names a case."""
    return group in _SCALES


_NUMBER = re.compile(r"(\d+(?:[.,]\d+)?)(st|nd|rd|th|k|s|ms|m|h|d)?")


@lru_cache(maxsize=1 << 15)  # asked of every token of every rule
def number_of(token: str) -> float | None:
    """The number a token names ("three", "1.5k", "2nd"), or None."""
    if token in lx.NUMBER_WORDS:
        return float(lx.NUMBER_WORDS[token])
    m = _NUMBER.fullmatch(token)
    if not m:
        return None
    value = float(m.group(1).replace(",", ""))
    return value * 1000 if m.group(2) == "k" else value


def fmt(value: float) -> str:
    """A value as the analysis writes it: "3", not "3.0"."""
    return str(int(value)) if value == int(value) else f"{value:g}"


@lru_cache(maxsize=1 << 15)  # asked of every term of every rule
def weight_of(word: str) -> float:
    """How much a canonical word weighs in a comparison: a generic verb little, an identifier more."""
    if word in GENERIC or word in _PLACEHOLDERS:
        return 0.3
    if any(ch in word for ch in "_./#") or any(ch.isdigit() for ch in word):
        return 1.5  # identifiers (store_get, robots.txt, customer_id) name exactly one thing
    return 1.0


DATE_VALUES = {i for i, g in enumerate(lx.ALTERNATIVES) if g.split()[0] in ("monday", "january")}
FREQUENCY = next(i for i, g in enumerate(lx.ALTERNATIVES) if "weekly" in g.split())
FREQUENCIES = frozenset(stem(w) for w in lx.ALTERNATIVES[FREQUENCY].split())
