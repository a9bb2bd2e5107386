"""Two analysed rules side by side: which terms they share and what is left over on each side.

Terms match when they are the same canonical word (stems and synonyms already applied by `analyze`),
near spellings of one long word (character trigrams), a compound on one side of two words on the other
("plaintext" / "plain text"), or, matched last, an acronym written in capitals for the words it stands for
("CFO" / "chief financial officer"). The leftovers are what the judgement in `offline_judge.py` weighs.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

from agentuse.core.helper.similarity import Analysis, Term, analyze, remembered, unique_terms

# Term overlap (the offline evaluator's synonym-aware Dice) at which two texts may say the same thing: worth
# a model's look under the cap (core/tidy.py), a comment about a rule in force (core/effectiveness.py).
# Paraphrases seen here score 0.47-0.86; unrelated rules 0-0.4.
NEAR_DUPLICATE = 0.45


@lru_cache(maxsize=16384)
def _char_grams(word: str, n: int = 3) -> frozenset[str]:
    padded = f" {word} "
    return frozenset(padded[i:i + n] for i in range(max(1, len(padded) - n + 1)))


# Shorter words match only themselves.
SIMILAR_MIN_LENGTH = 6
_AGENT_SUFFIXES = frozenset({"er", "or", "ant", "ent", "ist", "ian", "ee"})


@lru_cache(maxsize=1 << 16)  # a tidy-up compares the same words across every pair of rules
def similar_words(a: str, b: str) -> bool:
    """Same term, or near spellings of one long word ("partitioned"/"partition", "annotate"/"annotation"
    after stemming): character trigrams, so short words never match by accident."""
    if a == b:
        return True
    if min(len(a), len(b)) < SIMILAR_MIN_LENGTH:
        return False
    # One word and its derived form ("sarcasm"/"sarcastic", "access"/"accessible"): a long shared start,
    # most of the shorter word ("personal"/"personnel", "customer"/"customize" stay apart), and not a
    # person named after the thing ("account"/"accountant", "develop"/"developer").
    prefix = len(os.path.commonprefix([a, b]))
    if max(a, b, key=len)[prefix:] in _AGENT_SUFFIXES and prefix == min(len(a), len(b)):
        return False
    if prefix >= 6 and prefix >= 0.8 * min(len(a), len(b)) and len(max(a, b, key=len)) - prefix <= 3:
        return True  # at most a suffix's letters more: "sentencecase" is a compound, not "sentence"
    ga, gb = _char_grams(a), _char_grams(b)
    return 2 * len(ga & gb) / (len(ga) + len(gb)) >= 0.75


@dataclass
class Overlap:
    shared: list[tuple[Term, Term]]
    left_a: list[Term]
    left_b: list[Term]

    @property
    def dice(self) -> float:
        shared = sum(max(a.weight, b.weight) for a, b in self.shared)
        total = shared * 2 + sum(t.weight for t in self.left_a) + sum(t.weight for t in self.left_b)
        return 2 * shared / total if total else 0.0


class _Side:
    """One analysis as `overlap` reads it: its unique terms and their words, the compounds of adjacent
    words, where each word is, and which words are long enough to match another."""

    __slots__ = ("terms", "words", "compounds", "index", "long", "capitals")

    def __init__(self, analysis: Analysis) -> None:
        self.capitals = bool(_CAPITALS.search(analysis.text))  # may hold an acronym (`_initials`)
        self.terms = unique_terms(analysis.terms)
        self.words = [t.word for t in self.terms]
        self.compounds = {self.words[i] + self.words[i + 1] for i in range(len(self.words) - 1)}
        self.index = {word: j for j, word in enumerate(self.words)}
        self.long = [j for j, word in enumerate(self.words) if len(word) >= SIMILAR_MIN_LENGTH]


def side_of(analysis: Analysis) -> _Side:
    """How `overlap` reads one analysis (its unique terms, their words and positions), built once per text."""
    return remembered(analysis, "_overlap_side", _Side)


def overlap(a: Analysis, b: Analysis) -> Overlap:
    side_a, side_b = side_of(a), side_of(b)
    tb, b_words, index_b, long_b, compounds_b = side_b.terms, side_b.words, side_b.index, side_b.long, side_b.compounds
    # Each term of `a` takes the first term of `b` not yet taken that `similar_words` matches. The words of
    # a side are unique, and a short word matches only itself: one look-up finds its match, and a long word
    # is tried against b's long words alone (the hottest loop of a tidy-up's offline judgement).
    shared: list[tuple[Term, Term]] = []
    used_b: set[int] = set()
    left_a: list[Term] = []
    for term in side_a.terms:
        word = term.word
        if len(word) < SIMILAR_MIN_LENGTH:
            match = index_b.get(word)
            if match in used_b:
                match = None
        else:
            match = next((j for j in long_b if j not in used_b and similar_words(word, b_words[j])), None)
        if match is not None:
            used_b.add(match)
            shared.append((term, tb[match]))
        elif word in compounds_b:
            shared.append((term, term))
        else:
            left_a.append(term)
    compounds_a = side_a.compounds
    left_b = [t for j, t in enumerate(tb) if j not in used_b and t.word not in compounds_a]
    # A compound on one side absorbs its two parts on the other ("plaintext" / "plain text").
    absorbed = {w for x, y in shared if x is y for w in _split_compound(x.word, b_words)}
    if absorbed:
        left_b = [t for t in left_b if t.word not in absorbed]
    if left_a and left_b:
        if side_a.capitals:
            left_a, left_b = _initials(shared, left_a, left_b, a.text, False)
        if side_b.capitals:
            left_b, left_a = _initials(shared, left_b, left_a, b.text, True)
    return Overlap(shared=shared, left_a=left_a, left_b=left_b)


_CAPITALS = re.compile(r"[A-Z]{2}")  # an acronym is written in capitals; most rules hold none


def _initials(shared: list, short: list[Term], long: list[Term], text: str,
              swapped: bool) -> tuple[list[Term], list[Term]]:
    """An acronym on one side for its words on the other ("the UI" / "the user interface", "CFO" / "chief
    financial officer"): matched as one term, the words as absorbed. Only a word written in capitals in its
    rule ("ad" is not "annual discount"); the words in the order their side wrote them."""
    for term in short:
        word = term.word
        n = len(word)
        if not (2 <= n <= 5 and word.isalpha()) or len(long) < n or word.upper() not in text:
            continue
        for i in range(len(long) - n + 1):
            window = long[i:i + n]
            if all(t.word[0] == ch for t, ch in zip(window, word)):
                shared.append((window[0], term) if swapped else (term, window[0]))
                return ([t for t in short if t is not term],
                        [t for t in long if not any(t is w for w in window)])
    return short, long


def about_the_same(a: str, b: str) -> bool:
    """Two texts that may say the same thing (NEAR_DUPLICATE)."""
    return overlap(analyze(a), analyze(b)).dice >= NEAR_DUPLICATE


def _split_compound(word: str, words: list[str]) -> set[str]:
    for i in range(len(words) - 1):
        if words[i] + words[i + 1] == word:
            return {words[i], words[i + 1]}
    return set()
