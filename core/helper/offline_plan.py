"""Offline tidy planning and the permanent-block rewrite: which rules go together, and how.

Groups are built from the strict pairwise judgement of `offline_judge.py`, so two rules that differ in a
number, a date, a qualifier or an exception are never merged as duplicates. Clusters use complete
linkage (every member a duplicate of every other), so a chain A~B~C cannot pull in an A that C does
not restate. Iteration is in input order everywhere, so the same rules always give the same plan.
"""

from __future__ import annotations

from functools import lru_cache

from agentuse.core.helper import protocol as p
from agentuse.core.helper.offline_judge import Label, compare
from agentuse.core.helper.offline_text import combine_duplicates, sentence_key, sentences

# The spec compresses rules over 200 words.
COMPRESS_OVER_WORDS = 200


@lru_cache(maxsize=4096)
def _label(a: str, b: str) -> Label:
    return compare(a, b).label


@lru_cache(maxsize=4096)  # the rewrite of the permanent block asks again what a pass's plan asked
def restates(a: str, b: str) -> bool:
    """Every sentence of `a` is said by some sentence of `b`, word for word or as a strict duplicate."""
    theirs = sentences(b)
    return all(
        any(sentence_key(s) == sentence_key(t) or _label(s, t) is Label.duplicate for t in theirs)
        for s in sentences(a)
    ) and bool(theirs)


def duplicate_clusters(rules: list[p.RuleRef]) -> list[list[int]]:
    """Indexes of rules grouped by complete linkage over the duplicate relation, singletons included."""
    assigned: set[int] = set()
    clusters: list[list[int]] = []
    for i in range(len(rules)):
        if i in assigned:
            continue
        cluster = [i]
        for j in range(i + 1, len(rules)):
            if j not in assigned and all(_label(rules[k].text, rules[j].text) is Label.duplicate for k in cluster):
                cluster.append(j)
        assigned.update(cluster)
        clusters.append(cluster)
    return clusters


def plan_moves(rules: list[p.RuleRef]) -> list[p.Move]:
    moves: list[p.Move] = []
    used: set[int] = set()
    anchors: set[int] = set()  # rules others are retired in favour of: they must stay as they are
    for cluster in duplicate_clusters(rules):
        if len(cluster) > 1:
            moves.append(p.Move(kind=p.MoveKind.merge, ids=[rules[i].id for i in cluster],
                                reason="they say the same thing in different words"))
            used.update(cluster)
    for i, rule in enumerate(rules):
        # A rule a person repeated (or reviewers commented on about) is never retired: it is not landing.
        if i in used or i in anchors or rule.not_landing:
            continue
        for j, other in enumerate(rules):
            if j != i and j not in used and restates(rule.text, other.text) and not restates(other.text, rule.text):
                moves.append(p.Move(kind=p.MoveKind.retire, ids=[rule.id], superseded_by=other.id,
                                    reason=f"everything it says is stated by {other.id}"))
                used.add(i)
                anchors.add(j)
                break
    for i, rule in enumerate(rules):
        if i not in used and i not in anchors and rule.not_landing:
            why = f"repeated {rule.re} time(s)" if rule.re else f"commented on about it on {rule.commented} run(s)"
            moves.append(p.Move(kind=p.MoveKind.rewrite, ids=[rule.id], reason=f"{why}: the wording is not landing"))
            used.add(i)
    for i, rule in enumerate(rules):
        words = len(rule.text.split())
        if i not in used and i not in anchors and words > COMPRESS_OVER_WORDS:
            moves.append(p.Move(kind=p.MoveKind.compress, ids=[rule.id],
                                reason=f"{words} words, over the {COMPRESS_OVER_WORDS}-word limit"))
            used.add(i)
    return moves


def rewrite_block(rules: list[p.RuleRef]) -> p.BlockAnswer:
    """Combine duplicates only: each output rule covers a cluster of duplicates plus any rule whose every
    sentence it already states. Every input is claimed exactly once; nothing is dropped."""
    clusters = duplicate_clusters(rules)
    text = lambda idxs: "\n".join(rules[i].text for i in idxs)  # noqa: E731
    guests: dict[int, list[int]] = {ci: [] for ci in range(len(clusters))}
    absorbed: set[int] = set()
    for ci, cluster in enumerate(clusters):
        if len(cluster) != 1 or guests[ci]:
            continue  # a cluster that hosts others stays, so nothing hosted can vanish with it
        for cj, host in enumerate(clusters):
            if cj != ci and cj not in absorbed and restates(text(cluster), text(host)) \
                    and not restates(text(host), text(cluster)):
                guests[cj].append(cluster[0])
                absorbed.add(ci)
                break
    out = []
    for ci, cluster in enumerate(clusters):
        if ci in absorbed:
            continue
        members = cluster + guests[ci]
        out.append(p.RewrittenRule(category=rules[members[0]].category,
                               text=combine_duplicates([rules[i].text for i in members]),
                               covers=[rules[i].id for i in members]))
    return p.BlockAnswer(rules=out, dropped=[])
