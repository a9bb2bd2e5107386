"""The tidy-up's messages of the helper protocol (core/helper/protocol.py): plan the groups, rewrite a
group, rewrite the permanent block. Apart from the rest so that a command that only saves a note or
captures a run never builds their models; `protocol` re-exports every name here on first use.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field

from agentuse.core.helper.protocol import Draft, Message, Reason, RuleRef
from agentuse.core.learning import Category
from agentuse.core.model_defaults import empty_list
from agentuse.core.redact import Redacted


class MoveKind(str, Enum):
    merge = "merge"
    rewrite = "rewrite"
    compress = "compress"
    retire = "retire"


class Move(BaseModel):
    kind: MoveKind
    ids: list[str] = Field(description="the rules this move consumes; each id in at most one move")
    reason: Reason = ""
    superseded_by: str | None = Field(None, description="for retire: the id of the rule that now states it")


class PlanRequest(Message):
    rules: list[RuleRef]


class PlanAnswer(BaseModel):
    moves: list[Move] = Field(default_factory=empty_list)


class Dropped(BaseModel):
    id: str
    reason: Reason


class RewriteRequest(Message):
    kind: MoveKind
    originals: list[RuleRef]


class RewriteAnswer(Message):
    rule: Draft
    covers: list[str] = Field(description="every original id this rule carries")
    dropped: list[Dropped] = Field(default_factory=empty_list)


class BlockRequest(Message):
    rules: list[RuleRef] = Field(description="every rule of the permanent block, in order")


class RewrittenRule(BaseModel):
    """One rule of the permanent-block rewrite, with the input rules it carries (not learned_block.BlockRule,
    the rule as the agent file holds it)."""

    category: Category = Category.tip
    text: Redacted  # it goes into the agent file, which is committed: no credential, as for every Draft
    covers: list[str]


class BlockDrop(Dropped):
    """An input rule of the permanent block left out because another rule now fully states it. The rule
    named is audited for it like a cover: a drop that names no rule of the rewrite is no drop."""

    stated_by: str | None = Field(None, description="the id of the input rule whose output rule (the one that "
                                                    "covers it) now fully states this one")


class BlockAnswer(BaseModel):
    rules: list[RewrittenRule]
    dropped: list[BlockDrop] = Field(default_factory=empty_list)
