"""The session log's vocabulary: one pydantic model per event kind, a discriminated union on `type`.

A session log is the run's only record, and later stages read it: the tool-errors channel scans the tool
calls, `replay:` replays the model replies, a resume rebuilds the conversation from it. So every event
carries what those readers need and nothing is kept only in memory.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter

from agentuse.core.redact import Redacted
from agentuse.runtime.messages import ReplyBlock, Usage
from agentuse.core.model_defaults import empty_list

RunStatus = Literal["completed", "awaiting_review", "rejected", "failed"]
Decision = Literal["approve", "revise", "reject"]


class _Event(BaseModel):
    at: str | None = None  # ISO-8601 UTC; filled by the log's clock when the event is written


class RunStart(_Event):
    type: Literal["run_start"] = "run_start"
    session_id: str
    agent_key: str
    agent_path: str
    project_root: str
    ih: str = Field(description="instruction hash of the agent file at run time")
    model: str
    prompt: str
    # The exact system prompt sent: a resume continues the same conversation with the same rules in force.
    system: str
    injected: list[str] = Field(default_factory=empty_list, description="ids of the rules injected this run")
    approval: bool = False
    pid: int
    pid_started: int | None = Field(None, description="when that process started (session.process_started)")


class RoundStart(_Event):
    """A revision round begins: the store is read again, so the round runs with the rules in force now."""

    type: Literal["round_start"] = "round_start"
    round: int = Field(description="the approval round this work answers (the first round is the run's start)")
    ih: str = Field(description="instruction hash of the agent file when the round began")
    system: str  # replaces the earlier round's system prompt for every model request of this round
    injected: list[str] = Field(default_factory=empty_list, description="ids of the rules injected this round")


class ModelRequestEvent(_Event):
    type: Literal["model_request"] = "model_request"
    model: str
    turn: int
    messages: int = Field(description="how many messages the conversation held when sent")


class ModelReplyEvent(_Event):
    type: Literal["model_reply"] = "model_reply"
    content: list[ReplyBlock] = Field(default_factory=empty_list)
    stop_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)


class ToolCallEvent(_Event):
    type: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    input: Any = None


class ToolResultEvent(_Event):
    type: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    output: str = ""
    error: str | None = None
    is_error: bool = False
    cut_off: bool = Field(False, description="not run: the reply was cut off at the output limit mid-call")

    @property
    def text(self) -> str:
        """What the model was shown."""
        return self.error if self.is_error and self.error is not None else self.output


class ApprovalRequest(_Event):
    type: Literal["approval_request"] = "approval_request"
    output: str = Field(description="the work under review")
    round: int = 1


class ApprovalDecision(_Event):
    type: Literal["approval_decision"] = "approval_decision"
    decision: Decision
    comment: str | None = None
    remember: str | None = Field(None, description="the Learn checkbox: text to keep for future runs")
    pid: int
    pid_started: int | None = Field(None, description="when that process started (session.process_started)")

    @property
    def has_feedback(self) -> bool:
        """A reviewer who wrote anything had to correct something: such a run credits no rule."""
        return bool((self.comment or "").strip() or (self.remember or "").strip())


class ApprovalCredit(_Event):
    """Written under the store lock just before an approval's `ok:` credit is: a resume killed after the
    credit and re-run finds it and credits nothing again (core/inject.py `credit_approval`)."""

    type: Literal["approval_credit"] = "approval_credit"
    round: int
    ok_before: dict[str, int] = Field(default_factory=dict, description="each credited rule's ok: before the credit")


class NoteRepeat(_Event):
    """Written under the store lock just before a note saved as a repeat of a rule is: the repeat changes
    only that rule's `re:`, so nothing in the store says this session's note is in it. A resume killed
    before the note's result line and run again finds the count there and counts nothing again
    (flows/post_run.py `after_resume`)."""

    type: Literal["note_repeat"] = "note_repeat"
    rule: str = Field(description="the id of the rule the note repeats")
    re: int = Field(description="that rule's re: once this repeat is stored")


LearningSource = Literal["capture", "note"]


class LearningResult(_Event):
    type: Literal["learning_result"] = "learning_result"
    line: Redacted  # read back redacted too: a log written before redaction existed shows no credential
    # Which post-run step wrote it: a resume run again after a kill finishes the one that has not reported
    # (runtime/approval.py). None in logs from before it was recorded: then any line counts for both.
    source: LearningSource | None = None


class RunEnd(_Event):
    """How a stretch of work ended. `awaiting_review` with an `error` is a revision whose work failed (a
    model fault, an interruption): the revision is withdrawn (`standing`) and the gate stands again on the
    output the reviewer was shown, so a failed revision never costs the reviewer their review."""

    type: Literal["run_end"] = "run_end"
    status: RunStatus
    output: str | None = None
    error: str | None = None

    @property
    def revision_failed(self) -> bool:
        return self.status == "awaiting_review" and self.error is not None


Event = Annotated[
    Union[
        RunStart,
        RoundStart,
        ModelRequestEvent,
        ModelReplyEvent,
        ToolCallEvent,
        ToolResultEvent,
        ApprovalRequest,
        ApprovalDecision,
        ApprovalCredit,
        NoteRepeat,
        LearningResult,
        RunEnd,
    ],
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def current_round(events: list[Event]) -> RunStart | RoundStart | None:
    """The round whose system prompt and rules are in force: the latest revision round that was not
    withdrawn, else the start."""
    return next((e for e in reversed(standing(events)) if isinstance(e, (RunStart, RoundStart))), None)


def under_review(events: list[Event]) -> str:
    """The output the gate is asked about: the latest approval request's ("" before there is one)."""
    return next((e.output for e in reversed(events) if isinstance(e, ApprovalRequest)), "")


def read_back(events: list[Event]) -> list[Event]:
    """The log as this version writes it. Before a failed revision kept the gate open, one ended its session:
    a run_end "failed" closing the stretch a revise decision began. That is a failed revision, so it reads
    as one (awaiting review on the output that was shown), and its reviewer can still answer the gate."""
    read: list[Event] = []
    revising = False  # since the last run_end, a revise decision answered a gate
    for event in events:
        if isinstance(event, ApprovalDecision):
            revising = event.decision == "revise"
        elif isinstance(event, RunEnd):
            if revising and event.status == "failed":
                event = event.model_copy(update={"status": "awaiting_review", "output": under_review(read),
                                                 "error": event.error or "the revision failed"})
            revising = False
        read.append(event)
    return read


def standing(events: list[Event]) -> list[Event]:
    """The log without its withdrawn revisions: each failed one, from its decision to the run_end that says
    it failed. The conversation the model is sent next, the round under review and the gate still to answer
    are read from what stands; the log itself keeps everything (the comment still counts as feedback)."""
    kept: list[Event] = []
    for event in events:
        if isinstance(event, RunEnd) and event.revision_failed:
            asked = max((i for i, e in enumerate(kept) if isinstance(e, ApprovalDecision)), default=len(kept))
            del kept[asked:]
            continue
        kept.append(event)
    return kept
