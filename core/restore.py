"""Restore a rule from the archive by hand (`agentuse learnings restore`): the newest archived copy of
that id goes back into the store, re-vetted against the current contract and the rules in force, like a
stale rule (core/revet.py): a pass is active, a failure is quarantined with the reason.

The vet's asymmetry is the spec's: when the vet call itself fails, a person's rule is restored active
(fail open), unstamped, so the next capture or tidy-up vets it; an auto-extracted rule stays in the
archive (fail closed). The cap applies like any write: `cap.write` places the rule exactly as it places
a correction a person saves (room_first=False, never draining the set). The rule is written to the store
before it leaves the archive, so a crash in between leaves it in both, never in neither.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from agentuse.core import cap as capping
from agentuse.core import revet, snapshots, store
from agentuse.core.discard import find
from agentuse.core.errors import AgentuseError
from agentuse.core.helper.protocol import VetAnswer, VetRequest, ref
from agentuse.core.learning import VET_OFFLINE, Channel, Learning, State, Verdict
from agentuse.core.failure import Failure
from agentuse.core.model_defaults import empty_list


class Restored(BaseModel):
    rule: Learning  # as it is in the store now
    lines: list[str] = Field(default_factory=empty_list)


def archived(location: store.AgentLocation, rule_id: str) -> Learning:
    """The newest archived copy of `rule_id` (an exact id, or a prefix only one archived rule has)."""
    return find(store.load_archive(location).learnings, rule_id, where=str(location.archive_path))


def vet_request(rule: Learning, *, contract: str, rules: list[Learning]) -> VetRequest | None:
    """None for a tool-errors record: mechanics, not policy, so nothing to vet (as in a re-vet)."""
    if rule.ch is Channel.tool_errors:
        return None
    return VetRequest(contract=contract, rules_in_force=[ref(r) for r in rules], trace="",
                      candidates=[revet.candidate(rule)])


def decide(rule: Learning, request: VetRequest | None, answer: VetAnswer | Failure | None, *,
           rules: list[Learning], ih: str, offline: bool = False) -> tuple[Learning, str]:
    """The record to put back, and what its vet said. Raises when an auto rule cannot be vetted. `offline`:
    the vet was the offline evaluator's, so its verdict is provisional (`vet:offline`); a rule the vet
    did not judge carries no such mark (unstamped, it is vetted by the next capture or tidy-up anyway)."""
    # "retired: ..." was the archive's reason; the archived copy's vet: mark is replaced by this vet's.
    live = rule.model_copy(update={"state": State.active, "why": None, "vet": None})
    if request is None:
        return live.model_copy(update={"ih": ih}), "a tool-errors record needs no vet"
    verdict = None
    if isinstance(answer, VetAnswer):
        verdict = next((v for v in answer.verdicts if v.id == rule.id), None)
    if verdict is None:
        failure = answer.message if isinstance(answer, Failure) else "the vet gave no verdict for it"
        if not rule.is_human:
            raise AgentuseError(f'"{rule.title}" (id:{rule.id}) was not restored: the vet call failed ({failure}), '
                                "and an auto-extracted rule is never put back unvetted. It stays in the archive.")
        # Fail open, unstamped: a rule with no hash injects, and the next capture or tidy-up vets it.
        return live.model_copy(update={"ih": None}), f"not vetted: the vet call failed ({failure})"
    if verdict.verdict is Verdict.unsure and not rule.is_human:
        raise AgentuseError(f'"{rule.title}" (id:{rule.id}) was not restored: the vet could not tell '
                            f"({verdict.detail or 'no detail'}), and an auto-extracted rule is never put back "
                            "unvetted. It stays in the archive.")
    live = live.model_copy(update={"vet": VET_OFFLINE if offline else None})
    why = revet.reason(verdict, contract=request.contract, rules=rules)
    if why is None:
        return live.model_copy(update={"ih": ih}), "it passes the vet against the current instructions"
    return live.model_copy(update={"state": State.quarantined, "why": why, "ih": ih}), why


def put_back(location: store.AgentLocation, copy: Learning, record: Learning, *, verdict: str, cap: int,
             agent_arg: str) -> Restored:
    """Write `record` through the cap and take `copy` (the archived entry it came from) out of the archive,
    under the commit's locks, in the order every writer takes them (`snapshots.locks`: the cap's write takes
    the agent-file lock too; taken after the store's, a tidy-up commit holding it and waiting for the store's
    would wait on this restore while it waits on the commit)."""
    with snapshots.locks(location):
        held = next((r for r in store.load(location).learnings if r.id == record.id), None)
        if held is not None and _says(held) == _says(copy):
            # A restore killed between its two writes (or a discard between its two) left the rule in both
            # files: it is in force already, so finishing means taking the archived copy out.
            store.unarchive(location, record.id)
            return Restored(rule=held, lines=[f'"{held.title}" (id:{held.id}) is already in the store; took the '
                                              "copy an interrupted restore or discard left in the archive out."])
        if held is not None:
            raise AgentuseError(f"id:{record.id} is in the store already; discard that rule first to restore "
                                "the archived copy")
        newest = [r for r in store.load_archive(location).learnings if r.id == record.id]
        if not newest or newest[-1] != copy:
            raise AgentuseError(f"the archive changed while id:{record.id} was being vetted; nothing was "
                                "restored. Run the restore again.")
        report = capping.write(location, [capping.Incoming(record=record)], cap=cap, room_first=False,
                               drain_excess=False)
        [placed] = report.placed
        if placed.how in (capping.Placement.not_worth, capping.Placement.permanent):
            raise AgentuseError(f'"{record.title}" (id:{record.id}) was not restored: {placed.note}. It stays '
                                "in the archive.")
        store.unarchive(location, record.id)
    return Restored(rule=placed.record, lines=_lines(placed, record, verdict=verdict, cap=cap, agent_arg=agent_arg))


def _says(rule: Learning) -> tuple:
    return rule.category, rule.title, rule.body, rule.tool, rule.sig


def _lines(placed: capping.Placed, record: Learning, *, verdict: str, cap: int, agent_arg: str) -> list[str]:
    rule = placed.record
    named = f'"{rule.title}" (id:{rule.id})'
    if placed.how in (capping.Placement.repeated, capping.Placement.refreshed):
        how = placed.note or "refreshed"
        lines = [f"Restored {named}: the store already had this rule, so it counts there ({how})."]
    elif rule.state is State.quarantined:
        lines = [f"Restored {named} but quarantined: {rule.why}. It will not be injected; resolve the conflict "
                 f"in {agent_arg} or discard the rule."]
    elif record.ih is None:
        lines = [f"Restored {named} as active, {verdict}: a person's rule is kept in force, and the next "
                 "capture or tidy-up vets it."]
    else:
        lines = [f"Restored {named} as active: {verdict}."]
    if placed.how is capping.Placement.outside_cap:
        lines.append(f"It is kept outside the {cap}-rule cap (never injected): {placed.note}.")
    for old in placed.replaced:
        lines.append(f'Retired "{old.title}" to make room (archived, id:{old.id}).')
    return lines
