"""Stage 1 of a tidy-up sees rules in small groups of similar ones (spec: Tidying up).

Asking a model about every pair of rules is O(n^2) calls; one call over the whole set stops being
careful past a few dozen rules. So the set is cut into groups of about `GROUP_SIZE`, and the cut is made
by lexical similarity, so near-duplicates land in the same group as often as possible. The ones that do
not are what the next pass is for ("two duplicates that never share a group both survive it").

This is deterministic and costs no model call: word sets, Jaccard overlap, greedy seed-and-fill.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

GROUP_SIZE = 15

_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
# Words that say nothing about what a rule is about; keeping them makes every rule look alike.
_STOP = frozenset(
    """a an and any are as at be before by can do does each for from has have if in into is it its
    of on or so than that the their them then there these this those to use when with without you your
    always never not no every should must only one all more most just also which what who how""".split()
)


def words(text: str) -> frozenset[str]:
    """The content words of a rule, lightly stemmed so "cite"/"cites"/"citing" meet."""
    return frozenset(_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1)


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def group_count(n: int, size: int = GROUP_SIZE) -> int:
    return max(1, math.ceil(n / size)) if n else 0


def make_groups(texts: Sequence[str], *, size: int = GROUP_SIZE) -> list[list[int]]:
    """Partition indexes 0..n-1 into balanced groups of similar texts (each at most `size`).

    Seed-and-fill: the first unplaced rule (callers pass them strongest first) seeds a group, which then
    takes the unplaced rules most similar to what it already holds. Sizes are balanced (58 -> 15, 15, 14,
    14) so the last group is not a leftover of two."""
    n = len(texts)
    if n == 0:
        return []
    count = group_count(n, size)
    base, extra = divmod(n, count)
    capacities = [base + (1 if i < extra else 0) for i in range(count)]
    bags = [words(t) for t in texts]
    unplaced = list(range(n))
    groups: list[list[int]] = []
    for capacity in capacities:
        seed = unplaced.pop(0)
        group, vocabulary = [seed], set(bags[seed])
        while len(group) < capacity and unplaced:
            # Similar to the group as a whole, not only the seed, so a chain of related rules stays together.
            best = max(
                unplaced,
                key=lambda i: (max(similarity(bags[i], bags[j]) for j in group),
                               similarity(bags[i], frozenset(vocabulary)), -i),
            )
            unplaced.remove(best)
            group.append(best)
            vocabulary |= bags[best]
        groups.append(sorted(group))
    return groups
