"""Capture's messages of the helper protocol (core/helper/protocol.py): extract instructions from a run,
ground a reviewer's comment as a rule, reconcile a new rule with the rules in force. Apart from the rest so
that a tidy-up never builds their models; `protocol` re-exports every name here on first use.
"""

from __future__ import annotations

from enum import Enum

from pydantic import Field

from agentuse.core.helper.protocol import Draft, Message, RuleRef
from agentuse.core.redact import Redacted
from agentuse.core.model_defaults import empty_list


# --- extract (custom channel and capture agents) ---------------------------------------------------


class ExtractRequest(Message):
    guidance: str = Field(description="the capture.custom text that scopes what is worth keeping")
    contract: str = Field(description="the agent's complete instructions, never truncated")
    rules_in_force: list[RuleRef] = Field(default_factory=empty_list)
    trace: Redacted = Field(description="the run's evidence: prompt, replies, tool calls and results")


class ExtractAnswer(Message):
    candidates: list[Draft] = Field(default_factory=empty_list, max_length=5)


# --- ground a reviewer comment ---------------------------------------------------------------------


class GroundRequest(Message):
    comment: Redacted = Field(description="the reviewer's note as written")
    reviewed_output: Redacted = Field("", description="the work the comment was left on")
    contract: str = ""


class GroundAnswer(Message):
    rule: Draft


# --- reconcile a new rule against the rules in force (fold / trade) --------------------------------


class ReconcileAction(str, Enum):
    new = "new"  # unrelated to every rule in force
    repeat = "repeat"  # says what one rule already says: count a repeat on it
    fold = "fold"  # restates, sharpens or contradicts rules: one merged rule replaces them


class ReconcileRequest(Message):
    draft: Draft
    draft_is_human: bool = False
    rules_in_force: list[RuleRef] = Field(default_factory=empty_list)
    cap_full: bool = Field(False, description="the set is at its cap: prefer folding into a related rule")


class ReconcileAnswer(Message):
    action: ReconcileAction
    replaces: list[str] = Field(default_factory=empty_list, description="ids the merged rule replaces (fold/repeat)")
    merged: Draft | None = Field(None, description="for fold: one rule carrying every case of all of them")
