"""The re-vet of stale and provisional rules as a Prefect task, one per batch: shared by a capture and a
tidy-up (spec: "the next capture or agentuse learnings tidy re-vets them"), in a module of its own so a
capture does not import the tidy-up's steps."""

from __future__ import annotations

from pydantic import BaseModel

from agentuse.core.failure import Failure
from agentuse.core.helper.protocol import Helper, VetAnswer, VetRequest
from agentuse.tasks.retry import ask
from agentuse.tasks.step import step


class Revet(BaseModel):
    agent: str
    index: int
    request: VetRequest

    @property
    def label(self) -> str:
        return f"{self.agent}/batch-{self.index}"


@step("revet", model=True)
def revet(item: Revet, helper: Helper) -> VetAnswer | Failure:
    return ask("vet", lambda: helper.vet(item.request))
