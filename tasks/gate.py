"""The gate's model calls as Prefect tasks (core/gate.py decides what they mean): one vet for every
proposal of a step, and one audit per proposal, named `gate-vet/<label>` and `audit/<label>`."""

from __future__ import annotations

from pydantic import BaseModel

from agentuse.core import gate
from agentuse.core.helper.protocol import AuditAnswer, Helper, VetAnswer, VetRequest
from agentuse.core.failure import Failure
from agentuse.tasks.retry import ask
from agentuse.tasks.step import step


class GateVet(BaseModel):
    label: str
    request: VetRequest


@step("gate-vet", model=True)
def vet(item: GateVet, helper: Helper) -> VetAnswer | Failure:
    return ask("vet", lambda: helper.vet(item.request))


@step("audit", model=True)
def audit(item: gate.Proposal, helper: Helper) -> AuditAnswer | Failure | None:
    request = gate.audit_request(item)
    if request is None:
        return None  # the checks in code already failed it, or it claims nothing to carry
    return ask("audit", lambda: helper.audit(request))
