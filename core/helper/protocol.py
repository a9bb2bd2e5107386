"""The model-judged steps of the spec as one protocol with pydantic inputs and answers.

Every helper implementation (Anthropic, the embedded offline evaluator, test fakes) implements `Helper`.
The answer models double as the forced-tool input schemas of the Anthropic implementation, so keep their
field descriptions precise: the model reads them.

Every field that carries run or reviewer text is `Redacted` (core/redact.py), with one found set per
`Message`: whichever helper answers, and however a request was built, no credential reaches it. The contract and the capture guidance are
the user's own instructions and go as written (the vet sees the whole contract).
"""

from __future__ import annotations

import threading
from typing import Annotated, Protocol, runtime_checkable

from pydantic import AfterValidator, BaseModel, Field, model_validator

from agentuse.core.errors import HelperError, PermanentHelperError, TransientHelperError  # noqa: F401 (re-exported)
from agentuse.core.learning import Category, Learning, Verdict, rule_text
from agentuse.core.clip import clip
from agentuse.core.redact import Redacted, redacted_together
from agentuse.core.model_defaults import empty_list


# A model's reason or quote is one line of a report, a note or a quarantine reason: bounded here, where the
# answer is read, generously (the places that show one clip it to their own width, 160-300 characters).
REASON_CHARS = 2_000


def _short_line(text: str) -> str:
    return clip(" ".join(text.split()), REASON_CHARS)


# A reason, a quote or "what is missing" a model wrote: printed, kept in snapshots and shown on pages, so a
# hostile answer's megabyte of it is one short line.
Reason = Annotated[str, AfterValidator(_short_line)]


class Message(BaseModel):
    """A helper request or answer. Its `Redacted` fields, nested messages' included, share what they found:
    a credential recognised in a draft's title is masked in its body too (core/redact.py)."""

    @model_validator(mode="wrap")
    @classmethod
    def _redacted_together(cls, data, handler):
        return redacted_together(lambda: handler(data))


class RuleRef(Message):
    """A rule as a helper sees it: its id, category and text, plus the evidence a judgement may weigh."""

    id: str
    category: Category = Category.tip
    text: Redacted
    human: bool = Field(False, description="authored or approved by a person (src manual/approval)")
    re: int = Field(0, description="how many times a person repeated it")
    # Runs in force a reviewer commented on about what it says (core/effectiveness.py): like a repeat, the
    # wording is not landing.
    commented: int = 0
    ok: int = 0
    injected: int = 0
    date: str | None = None

    @property
    def not_landing(self) -> bool:
        """A person repeated it, or reviewers commented on what it says: restate it sharply, never retire it."""
        return self.re > 0 or self.commented > 0


def ref(rule: Learning) -> RuleRef:
    """A stored rule as the helper sees it (capture, reconcile, tidy and re-vet all show rules this way)."""
    return RuleRef(id=rule.id, category=rule.category, text=rule.text, human=rule.is_human, re=rule.re,
                   ok=rule.ok, injected=rule.injected, date=rule.date)


class Draft(Message):
    """A rule a helper wrote: an order, one behaviour, under 800 characters."""

    category: Category = Category.tip
    title: Redacted = Field(description="one line naming the behaviour")
    body: Redacted = Field("", description="the rule itself; may repeat the title when the title says it all")

    @property
    def text(self) -> str:
        return rule_text(self.title, self.body)


# --- vet ---------------------------------------------------------------------------------------------


class VetCandidate(Message):
    id: str
    category: Category = Category.tip
    text: Redacted
    human: bool = Field(False, description="a reviewer's correction: never judged ungrounded")


class VetRequest(Message):
    contract: str
    rules_in_force: list[RuleRef] = Field(default_factory=empty_list)
    trace: Redacted = ""
    candidates: list[VetCandidate]


class VetVerdict(BaseModel):
    id: str = Field(description="the candidate id this verdict is for")
    verdict: Verdict
    # Redacted: the quote becomes a quarantine reason in the learnings file, and the contract it quotes is
    # sent as written.
    detail: Annotated[Redacted, AfterValidator(_short_line)] = Field(
        "", description="for duplicate/contradiction: the conflicting text, quoted exactly")
    against: str | None = Field(
        None, description="for duplicate/contradiction: 'contract', or the id of the rule in force it collides with"
    )


class VetAnswer(BaseModel):
    verdicts: list[VetVerdict] = Field(default_factory=empty_list)


# --- audit: what a rewrite of people's rules dropped (a tidy-up's rewrites, a capture's merged fold) -------


class AuditRequest(Message):
    originals: list[RuleRef]
    rewritten: Draft


class Missing(BaseModel):
    id: str
    what: Reason = Field(description="the case, threshold, exception or example no longer carried")


class AuditAnswer(BaseModel):
    missing: list[Missing] = Field(default_factory=empty_list)


# --- accounting and faults -------------------------------------------------------------------------


# Parallel groups call one helper from several threads: `+=` on shared counters would lose updates. One
# lock for every counter keeps HelperUsage a plain value (equal when its numbers are); contention is negligible.
_USAGE_LOCK = threading.Lock()


class HelperUsage(BaseModel):
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    def add(self, input_tokens: int, output_tokens: int) -> None:
        with _USAGE_LOCK:
            self.calls += 1
            self.input_tokens += input_tokens
            self.output_tokens += output_tokens


class InvalidAnswerError(PermanentHelperError):
    """The model answered, but the answer does not validate against the operation's schema."""


# The tidy-up's own messages (plan, rewrite, the permanent block) live in protocol_tidy.py, and capture's
# (extract, ground, reconcile) in protocol_capture.py, each loaded on first use: a command that saves one
# note never builds the tidy-up's models, nor a tidy-up capture's. `protocol.PlanRequest` still works.
_TIDY_MESSAGES = frozenset({"MoveKind", "Move", "PlanRequest", "PlanAnswer", "Dropped", "RewriteRequest",
                            "RewriteAnswer", "BlockRequest", "RewrittenRule", "BlockDrop", "BlockAnswer"})
_CAPTURE_MESSAGES = frozenset({"ExtractRequest", "ExtractAnswer", "GroundRequest", "GroundAnswer", "ReconcileAction",
                               "ReconcileRequest", "ReconcileAnswer"})


def __getattr__(name: str):
    if name in _TIDY_MESSAGES:
        from agentuse.core.helper import protocol_tidy

        return getattr(protocol_tidy, name)
    if name in _CAPTURE_MESSAGES:
        from agentuse.core.helper import protocol_capture

        return getattr(protocol_capture, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@runtime_checkable
class Helper(Protocol):
    """One implementation per provider. Methods are synchronous; callers parallelise across calls."""

    name: str
    usage: HelperUsage

    def extract(self, request: ExtractRequest) -> ExtractAnswer: ...

    def vet(self, request: VetRequest) -> VetAnswer: ...

    def ground(self, request: GroundRequest) -> GroundAnswer: ...

    def reconcile(self, request: ReconcileRequest) -> ReconcileAnswer: ...

    def plan_groups(self, request: PlanRequest) -> PlanAnswer: ...

    def rewrite_group(self, request: RewriteRequest) -> RewriteAnswer: ...

    def audit(self, request: AuditRequest) -> AuditAnswer: ...

    def rewrite_block(self, request: BlockRequest) -> BlockAnswer: ...
