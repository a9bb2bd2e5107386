"""Re-vet the rules the contract moved out from under (spec: Rules are stamped with the instructions
they were checked against; Tidying up, the first of its six changes).

Stale rules (vetted against instructions that no longer exist) and rules with no hash at all are checked
against the current instructions: the ones that still hold are re-stamped, the ones that no longer do
are quarantined with the reason. Nothing is deleted, and nothing is rejected outright either: a rule
that already reached runs is kept visible with its reason, whoever wrote it. A vet call that fails
leaves its rules exactly as they were (stale ones stay held out), because a rule must not start
injecting again on the strength of a check that never happened.
"""

from __future__ import annotations

from agentuse.core.capture import quarantine_reason
from agentuse.core.helper.protocol import VetAnswer, VetCandidate, VetRequest, ref
from agentuse.core.learning import Channel, Learning, Verdict
from agentuse.core.tidy_state import Failure, TidyState

BATCH = 15  # the same small-group size as stage 1, so a big upgrade backfill fans out in parallel


def candidates(state: TidyState) -> list[Learning]:
    """Active rules that are stale or were never stamped."""
    if state.current_ih is None:
        return []
    return [r for r in state.in_force() if r.ih != state.current_ih]


def restamp_structural(state: TidyState) -> None:
    """tool-errors records describe mechanics, not policy: nothing to contradict, so no model vet."""
    for rule in candidates(state):
        if rule.ch is Channel.tool_errors:
            state.restamp(rule)


def requests(state: TidyState, contract: str) -> list[VetRequest]:
    todo = [r for r in candidates(state) if r.ch is not Channel.tool_errors]
    if not todo:
        return []
    state.unvetted.update(r.id for r in todo)
    pending = {r.id for r in todo}
    # The rules in force that are not themselves in question: what a candidate may duplicate or contradict.
    settled = [ref(r) for r in state.in_force() if r.id not in pending]
    batches = [todo[i:i + BATCH] for i in range(0, len(todo), BATCH)]
    return [
        VetRequest(contract=contract, rules_in_force=settled, trace="",
                   candidates=[VetCandidate(id=r.id, category=r.category, text=r.text, human=r.is_human)
                               for r in batch])
        for batch in batches
    ]


def apply(state: TidyState, request: VetRequest, answer: VetAnswer | Failure) -> None:
    asked = {c.id for c in request.candidates}
    if isinstance(answer, Failure):
        state.notes.append(f"{len(asked)} stale learning(s) could not be re-vetted: {answer.message}")
        return
    judged: set[str] = set()
    for verdict in answer.verdicts:
        if verdict.id not in asked or verdict.id in judged:
            continue  # unknown ids ignored; the first verdict per id wins
        judged.add(verdict.id)
        rule = state.get(verdict.id)
        if verdict.verdict in (Verdict.contradiction, Verdict.duplicate):
            # Capture's wording: `contradicts the contract: "..."`, or the rule in force the vet quoted.
            settled = [r for r in state.in_force() if r.id not in asked]
            why = quarantine_reason(verdict.verdict, verdict.detail, contract=request.contract, rules=settled)
            state.quarantine(rule, why=why)
        else:
            # pass; "ungrounded" cannot apply: a re-vet has no trace to contradict the rule.
            state.restamp(rule)
    if asked - judged:
        state.notes.append(f"{len(asked - judged)} stale learning(s) got no verdict and stay held out")
