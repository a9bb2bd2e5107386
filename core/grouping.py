"""Stage 1 of a tidy-up sees rules in small groups of similar ones (spec: Tidying up).

Asking a model about every pair of rules is O(n^2) calls; one call over the whole set stops being
careful past a few dozen rules. So the set is cut into groups of about `GROUP_SIZE`, and the cut is made
by lexical similarity, so near-duplicates land in the same group as often as possible. The ones that do
not are what the next pass is for ("two duplicates that never share a group both survive it").

This is deterministic and costs no model call: term overlap, linked clusters packed into groups.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from agentuse.core.helper.similarity import analyze, overlap

GROUP_SIZE = 15


def group_count(n: int, size: int = GROUP_SIZE) -> int:
    return max(1, math.ceil(n / size)) if n else 0


LINK = 0.2  # word overlap at which two rules are treated as talking about the same thing


def make_groups(texts: Sequence[str], *, size: int = GROUP_SIZE) -> list[list[int]]:
    """Partition indexes 0..n-1 into ceil(n/size) balanced groups (58 -> 15, 15, 14, 14) of similar texts.

    Rules are first linked into clusters (word overlap of at least LINK, transitively), then clusters
    are packed whole into the groups, largest first, so filling a group's spare room never splits a
    cluster that would fit elsewhere. A cluster bigger than a group is cut in similarity order; a lone
    rule goes where it has the closest neighbour. Callers pass rules strongest first, which breaks ties."""
    n = len(texts)
    if n == 0:
        return []
    count = group_count(n, size)
    capacity = math.ceil(n / count)
    sim = matrix(texts)
    bins: list[list[int]] = [[] for _ in range(count)]
    for cluster in sorted(_clusters(sim), key=lambda c: (-len(c), c[0])):
        members = _chain(cluster, sim)
        while members:
            target = _choose(bins, capacity, members, sim)
            take = capacity - len(target)
            target += members[:take]
            members = members[take:]
    return [sorted(b) for b in bins if b]


def matrix(texts: Sequence[str]) -> list[list[float]]:
    """Pairwise similarity: the offline evaluator's weighted, synonym-aware term overlap (Dice). Plain
    word overlap misses near-duplicates worded apart ("Use a list for the tips" / "Number the three
    tips"); on the 58-rule example it put 7 of 12 superseded/superseding pairs together, this puts 11."""
    analyses = [analyze(t) for t in texts]
    n = len(texts)
    sim = [[1.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            sim[i][j] = sim[j][i] = overlap(analyses[i], analyses[j]).dice
    return sim


def _clusters(sim: list[list[float]]) -> list[list[int]]:
    parent = list(range(len(sim)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(sim)):
        for j in range(i + 1, len(sim)):
            if sim[i][j] >= LINK:
                parent[find(j)] = find(i)
    clusters: dict[int, list[int]] = {}
    for i in range(len(sim)):
        clusters.setdefault(find(i), []).append(i)
    return list(clusters.values())


def _chain(cluster: list[int], sim: list[list[float]]) -> list[int]:
    """Members in an order where each is close to one before it, so a cut keeps neighbours together."""
    order, rest = [cluster[0]], cluster[1:]
    while rest:
        best = max(rest, key=lambda i: (max(sim[i][j] for j in order), -i))
        rest.remove(best)
        order.append(best)
    return order


def _choose(bins: list[list[int]], capacity: int, members: list[int], sim: list[list[float]]) -> list[int]:
    open_bins = [b for b in bins if len(b) < capacity]
    if len(members) > 1:
        return max(open_bins, key=lambda b: capacity - len(b))  # most room: cut the cluster least
    lone = members[0]
    return max(open_bins, key=lambda b: (max((sim[lone][j] for j in b), default=0.0), capacity - len(b)))
