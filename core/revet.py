"""Re-vet the rules the contract moved out from under (spec: Rules are stamped with the instructions
they were checked against; Quarantine; Tidying up, the first of its six changes).

Stale rules (vetted against instructions that no longer exist) and rules with no hash at all are checked
against the current instructions: the ones that still hold are re-stamped, the ones that no longer do
are quarantined with the reason. Nothing is deleted, and nothing is rejected outright either: a rule
that already reached runs is kept visible with its reason, whoever wrote it. A vet call that fails
leaves its rules exactly as they were (stale ones stay held out), because a rule must not start
injecting again on the strength of a check that never happened.

Quarantine is revisited the same way: a quarantined rule whose reason may no longer hold — it was
quarantined against other instructions (its stamp differs from the current hash), or against a rule in
force that has since left — is re-vetted like a stale rule. A pass releases it (active, re-stamped, its
reason cleared); a failure keeps it quarantined with the new reason and the current stamp, so it is not
asked about again until something changes.
"""

from __future__ import annotations

import re

from agentuse.core.capture import first_verdicts, quarantine_reason
from agentuse.core.helper.protocol import VetAnswer, VetCandidate, VetRequest, VetVerdict, ref
from agentuse.core.learning import Channel, Learning, State, Verdict
from agentuse.core.failure import Failure
from agentuse.core.tidy_state import TidyState

BATCH = 15  # the same small-group size as stage 1, so a big upgrade backfill fans out in parallel
# The wording core/capture.py `quarantine_reason` gives a collision with a rule rather than the contract.
_COLLIDED = re.compile(r"\bthe rule in force id:([0-9a-zA-Z]{8})\b")


def collided_with(rule: Learning) -> str | None:
    """The id of the rule in force a quarantined rule's reason names, if it names one."""
    found = _COLLIDED.search(rule.why or "")
    return found[1] if found else None


def revisitable(state: TidyState) -> list[Learning]:
    """Quarantined rules whose reason may no longer hold: stamped against other instructions (or none),
    or colliding with a rule that is no longer active in the store."""
    if state.current_ih is None:
        return []
    active = {r.id for r in state.in_force()}

    def reason_gone(rule: Learning) -> bool:
        other = collided_with(rule)
        return other is not None and other not in active

    return [r for r in state.learnings
            if r.state is State.quarantined
            and (r.ih != state.current_ih or reason_gone(r) or (r.provisional and not state.offline))]


def candidates(state: TidyState) -> list[Learning]:
    """Active rules that are stale, never stamped, or vetted only offline while a real model is there to
    vet them; then the quarantined rules to revisit. With the offline evaluator a provisional rule is not
    asked again: it would only give the same answer."""
    if state.current_ih is None:
        return []

    def in_question(rule: Learning) -> bool:
        return rule.ih != state.current_ih or (rule.provisional and not state.offline)

    return [r for r in state.in_force() if in_question(r)] + revisitable(state)


def restamp_structural(state: TidyState) -> None:
    """tool-errors records describe mechanics, not policy: nothing to contradict, so no model vet."""
    for rule in state.in_force():
        if rule.ch is Channel.tool_errors and (rule.ih != state.current_ih or rule.provisional):
            state.restamp(rule, vetted=False)


def candidate(rule: Learning) -> VetCandidate:
    return VetCandidate(id=rule.id, category=rule.category, text=rule.text, human=rule.is_human)


def requests(state: TidyState, contract: str) -> list[VetRequest]:
    todo = [r for r in candidates(state) if r.state is State.quarantined or r.ch is not Channel.tool_errors]
    if not todo:
        return []
    # Only active rules can be held out of planning for want of a verdict; a quarantined one is out already,
    # and a provisional one stamped against these instructions keeps the offline evaluator's verdict meanwhile.
    state.unvetted.update(r.id for r in todo if r.state is State.active and r.ih != state.current_ih)
    pending = {r.id for r in todo}
    # The rules in force that are not themselves in question: what a candidate may duplicate or contradict.
    settled = [ref(r) for r in state.in_force() if r.id not in pending]
    batches = [todo[i:i + BATCH] for i in range(0, len(todo), BATCH)]
    return [VetRequest(contract=contract, rules_in_force=settled, trace="",
                       candidates=[candidate(r) for r in batch])
            for batch in batches]


def reason(verdict: VetVerdict, *, contract: str, rules: list[Learning]) -> str | None:
    """None: the rule holds. Otherwise why it is quarantined, in capture's wording (`contradicts the
    contract: "..."`, or the rule in force the vet named or quoted). "ungrounded" cannot apply: a re-vet
    has no trace to contradict the rule, and a person's rule is never judged ungrounded anyway."""
    if verdict.verdict not in (Verdict.contradiction, Verdict.duplicate):
        return None
    return quarantine_reason(verdict.verdict, verdict.detail, contract=contract, rules=rules,
                             against=verdict.against)


STALE, UNHASHED, REVISITED, PROVISIONAL = "stale", "unhashed", "revisited", "provisional"
# What happens to a rule the vet did not judge: it stays exactly as it was, which means this for each kind.
LEFT = {
    STALE: "stale learning(s) {what}; they stay held out",
    # Spec: rules with no hash at all are not stale: they stay injectable until a capture or tidy backfills them.
    UNHASHED: "learning(s) with no instruction hash {what}; they keep injecting until a later capture or tidy "
              "backfills them",
    REVISITED: "quarantined learning(s) {what}; they stay set aside",
    PROVISIONAL: "learning(s) vetted offline {what}; they stay in force as the offline evaluator left them",
}


def kind(rule: Learning, current_ih: str | None) -> str:
    """Which of the re-vet's four kinds a candidate is, as it was before the pass."""
    if rule.state is State.quarantined:
        return REVISITED
    if rule.ih is None:
        return UNHASHED
    return PROVISIONAL if rule.provisional and rule.ih == current_ih else STALE


def _left_as_they_were(state: TidyState, ids: set[str], what: str) -> None:
    tally = {k: 0 for k in LEFT}
    for rule_id in ids:
        tally[kind(state.get(rule_id), state.current_ih)] += 1
    state.notes += [f"{n} {LEFT[k].format(what=what)}" for k, n in tally.items() if n]


def apply(state: TidyState, request: VetRequest, answer: VetAnswer | Failure) -> None:
    asked = {c.id for c in request.candidates}
    if isinstance(answer, Failure):
        _left_as_they_were(state, asked, f"could not be re-vetted ({answer.message})")
        return
    verdicts = first_verdicts(answer, asked)
    for rule_id, verdict in verdicts.items():
        rule = state.get(rule_id)
        settled = [r for r in state.in_force() if r.id not in asked]
        why = reason(verdict, contract=request.contract, rules=settled)
        if why is not None:
            state.quarantine(rule, why=why)
        elif verdict.verdict is Verdict.unsure and rule.state is State.quarantined:
            continue  # "cannot tell" is no reason to release a held rule: it stays as it was
        elif rule.state is State.quarantined:
            state.release(rule)
        else:
            state.restamp(rule)
    if asked - verdicts.keys():
        _left_as_they_were(state, asked - verdicts.keys(), "got no verdict")


def apply_pass(state: TidyState, requests: list[VetRequest], answers: list[VetAnswer | Failure]) -> None:
    """A re-vet pass's answers, against the store as it is now (capture applies them under the store lock,
    after the calls): rules that left the store or were re-stamped meanwhile (a concurrent tidy) are not
    asked about any more, so their verdicts are ignored. A rule whose words changed meanwhile (`learnings
    --edit`) was not what the vet judged: it is left as it is, for the next capture or tidy-up to vet."""
    restamp_structural(state)
    pending = {r.id: candidate(r) for r in candidates(state)}
    edited: set[str] = set()
    for request, answer in zip(requests, answers, strict=True):
        edited |= {c.id for c in request.candidates if c.id in pending and pending[c.id] != c}
        still = request.model_copy(update={"candidates": [c for c in request.candidates if pending.get(c.id) == c]})
        if still.candidates:
            apply(state, still, answer)
    if edited:
        _left_as_they_were(state, edited, "were edited while the vet was asked about them")


def pass_summary(state: TidyState, what: str) -> str | None:
    """The line undo shows for a re-vet pass (`capture re-vet: 2 re-stamped, 1 quarantined`); None when the
    pass changed nothing."""
    counts = state.counts()
    parts = [f"{n} {label}" for n, label in ((counts.restamped, "re-stamped"), (counts.quarantined, "quarantined"),
                                             (counts.released, "released"),
                                             (counts.requarantined, "still quarantined")) if n]
    return f"{what}: " + ", ".join(parts) if parts else None
