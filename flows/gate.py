"""Passing model-written wording through the one gate (core/gate.py): the checks in code, ONE vet call for
every proposal of a step, then an audit per proposal, in parallel. Capture, remember and tidy all call
`through_gate`; a proposal that fails changes nothing."""

from __future__ import annotations

from agentuse.core import gate
from agentuse.core.helper.protocol import RuleRef
from agentuse.flows.runner import call, fan_out
from agentuse.tasks import gate as steps


def through_gate(proposals: list[gate.Proposal], *, contract: str, rules: list[RuleRef],
                 label: str) -> list[gate.Decision]:
    if not proposals:
        return []
    request = gate.vet_request(proposals, contract=contract, rules=rules)
    answer = None
    if request is not None:
        answer = call(steps.vet, steps.GateVet(label=label, request=request), on_error="collect")
    standing = gate.vetted(proposals, answer)
    asked = [p for p, ok in zip(proposals, standing, strict=True) if ok]
    answers = iter(fan_out(steps.audit, asked, on_error="collect"))
    audits = [next(answers) if ok else None for ok in standing]
    return gate.decide(proposals, answer, audits)
