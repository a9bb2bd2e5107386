"""Discard a rule by hand: out of the store, into the archive with the reason, never nowhere (spec:
Quarantine, "correct the agent file so the rule is no longer in conflict, or discard the rule").

Any rule can be discarded, whatever its state: an active rule a reviewer no longer wants, a quarantined
one, a graduated copy. `agentuse learnings discard` and the serve panel's Discard button both call
`discard`, so the two cannot mean different things. Rules are named by id: the exact 8 characters, or
a prefix only one rule has.
"""

from __future__ import annotations

from agentuse.core import store
from agentuse.core.errors import AgentuseError
from agentuse.core.learning import Learning

DISCARD_REASON = "discarded by hand"


def find(rules: list[Learning], given: str, *, where: str) -> Learning:
    """The rule with id `given`, or the only one whose id starts with it; one clear error otherwise."""
    given = given.strip()
    exact = [r for r in rules if r.id == given]
    if exact:
        return exact[-1]  # the archive may hold one id twice: the newest copy is the last
    prefixed = {r.id: r for r in rules if given and r.id.startswith(given)}
    if len(prefixed) == 1:
        return next(iter(prefixed.values()))
    if prefixed:
        raise AgentuseError(f"id {given!r} is ambiguous in {where}: it starts "
                            f"{', '.join(sorted(prefixed))}; give more of it")
    raise AgentuseError(f"no learning with id {given!r} in {where}")


def discard(location: store.AgentLocation, rule_id: str) -> Learning:
    """Move one rule from the store to the archive, under both locks; returns it as it was."""
    with store.transaction(location) as doc:
        rule = find(doc.learnings, rule_id, where=str(location.store_path))
        # Archive first, inside the store lock: if writing the archive fails, the rule stays in the store.
        # A discard killed after that write left it in both; run again, it files no second copy (store.archive).
        store.archive(location, [rule], reason=DISCARD_REASON)
        doc.learnings = [r for r in doc.learnings if r.id != rule.id]
    return rule


def discarded_line(rule: Learning) -> str:
    return f'Discarded "{rule.title}" (archived, id:{rule.id}).'
