"""overlap() pairs each term of one rule with the first term of the other not yet taken that
`similar_words` matches (core/helper/overlap.py). Its fast path (a look-up for short words, long words
tried against long words only) must give exactly that pairing, and spare the comparisons that cannot match."""

from __future__ import annotations

import json
from pathlib import Path

from agentuse.core.helper.overlap import SIMILAR_MIN_LENGTH, overlap, similar_words
from agentuse.core.helper.similarity import analyze, unique_terms

DATA = Path(__file__).resolve().parent / "data"


def _pairing_by_definition(a, b) -> list[tuple[str, str]]:
    ta, tb = unique_terms(a.terms), unique_terms(b.terms)
    taken: set[int] = set()
    pairs = []
    for term in ta:
        j = next((j for j, other in enumerate(tb) if j not in taken and similar_words(term.word, other.word)), None)
        if j is not None:
            taken.add(j)
            pairs.append((term.word, tb[j].word))
    return pairs


def test_the_pairing_is_the_first_untaken_similar_term_on_every_labelled_pair():
    checked = 0
    for path in sorted(DATA.glob("rule_pairs*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for x, y in ((row["a"], row["b"]), (row["b"], row["a"])):
                a, b = analyze(x), analyze(y)
                # Not compounds, nor an acronym read as its words (matched after the pairing, by initials).
                matched = [(s.word, t.word) for s, t in overlap(a, b).shared if s is not t and similar_words(s.word, t.word)]
                assert matched == _pairing_by_definition(a, b), (x, y)
                checked += 1
    assert checked > 3000


def test_short_words_are_never_compared_one_by_one():
    a = analyze("Keep the intro short and link each source before you publish the post.")
    b = analyze("Link every source and keep the intro brief before publishing a post.")
    long_a = [t for t in unique_terms(a.terms) if len(t.word) >= SIMILAR_MIN_LENGTH]
    long_b = [t for t in unique_terms(b.terms) if len(t.word) >= SIMILAR_MIN_LENGTH]
    similar_words.cache_clear()
    overlap(a, b)
    asked = similar_words.cache_info()
    assert asked.hits + asked.misses <= len(long_a) * len(long_b)


def test_an_acronym_in_capitals_matches_its_words_on_the_other_side():
    o = overlap(analyze("Ask the CFO before refunding."), analyze("Ask the chief financial officer before refunding."))
    assert not o.left_a and not o.left_b
    # Written in lower case it is a word of its own, never the initials of the other side's words.
    o = overlap(analyze("Show an ad before the video."), analyze("Show annual discounts before the video."))
    assert o.left_a and o.left_b
