"""The model calls of a tidy-up as Prefect tasks: one per stage-1 group, one per stage-2 rewrite, one per
re-vet batch, and the permanent-block rewrite (spec: Tidying up). The vet and the audits of new wording
are the gate's (tasks/gate.py).

Each task is a thin wrapper over one Helper operation. Transient faults (overloaded, rate-limited,
timeouts) are raised so the shared retry policy can retry them; a permanent fault (an answer that never
validates, a refused request) is returned as a `Failure`, because one group that cannot be planned must
not sink the groups beside it. The tidy logic in core decides what a failure means for each step.
Task run names read like `plan/blog-writer/pass-2/group-1`, so the dashboard shows where a pass is.
"""

from __future__ import annotations

from pydantic import BaseModel

from agentuse.core.graduate import block_request
from agentuse.core.helper.protocol import (
    BlockAnswer,
    Helper,
    PlanAnswer,
    PlanRequest,
    RewriteAnswer,
    RewriteRequest,
)
from agentuse.core.learned_block import BlockRule
from agentuse.core.tidy import Group, Job
from agentuse.core.failure import Failure
from agentuse.tasks.retry import ask
from agentuse.tasks.revet import Revet, revet  # noqa: F401 (a tidy-up re-vets as a capture does)
from agentuse.tasks.step import step


class BlockRewrite(BaseModel):
    agent: str
    block: list[BlockRule]

    @property
    def label(self) -> str:
        return f"{self.agent}/block"


@step("plan", model=True)
def plan_group(item: Group, helper: Helper) -> PlanAnswer | Failure:
    return ask("plan_groups", lambda: helper.plan_groups(PlanRequest(rules=item.rules)))


@step("rewrite", model=True)
def rewrite(item: Job, helper: Helper) -> RewriteAnswer | Failure:
    request = RewriteRequest(kind=item.move.kind, originals=item.originals)
    return ask("rewrite_group", lambda: helper.rewrite_group(request))


@step("block", model=True)
def rewrite_block(item: BlockRewrite, helper: Helper) -> BlockAnswer | Failure:
    return ask("rewrite_block", lambda: helper.rewrite_block(block_request(item.block)))
