"""The `Learning` record and its vocabularies (spec: Storage Format, Learning Categories)."""

from __future__ import annotations

import re
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field, field_validator

# Numbers the spec gives, named once (DESIGN.md, "Style to follow").
DEFAULT_MAX = 15
MAX_RANGE = (1, 50)
RULE_CHAR_LIMIT = 800
GRADUATE_AFTER_APPROVED_RUNS = 3
GRADUATE_AFTER_INJECTED_RUNS = 10
NEW_RULE_GRACE_DAYS = 14
TIDY_MAX_PASSES = 5
CAPTURE_AGENT_MAX_CANDIDATES = 5

ID_PATTERN = re.compile(r"^[0-9a-zA-Z]{8}$")
DATE_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class Category(str, Enum):
    tip = "tip"
    warning = "warning"
    pattern = "pattern"
    tool_usage = "tool-usage"
    error_fix = "error-fix"


class Source(str, Enum):
    """Who authored a rule. Files without `src:` load as auto."""

    auto = "auto"
    approval = "approval"
    manual = "manual"


class Channel(str, Enum):
    corrections = "corrections"
    tool_errors = "tool-errors"
    custom = "custom"
    agent = "agent"


class State(str, Enum):
    """Stored lifecycle state. `retired` exists only in archives: the live store skips it on read."""

    active = "active"
    graduated = "graduated"
    quarantined = "quarantined"
    retired = "retired"


class Verdict(str, Enum):
    pass_ = "pass"
    duplicate = "duplicate"
    contradiction = "contradiction"
    ungrounded = "ungrounded"
    # The vet could not tell (the offline evaluator met wording it cannot read): a person's note is kept
    # active (human input fails open), a free-form observation is rejected (fails closed).
    unsure = "unsure"


HUMAN_SOURCES = frozenset({Source.manual, Source.approval})


class Learning(BaseModel):
    """One stored rule: the `### [category] title` entry, its metadata comment, why/evidence and body."""

    model_config = ConfigDict(validate_assignment=True)

    id: str
    category: Category = Category.tip
    title: str
    body: str = ""
    date: str = Field(description="YYYY-MM-DD; the only field the format requires")
    confidence: float | None = None
    injected: int = 0
    src: Source = Source.auto
    ch: Channel | None = None
    ih: str | None = None
    tool: str | None = None
    sig: str | None = None
    sess: str | None = None
    state: State = State.active
    re: int = 0
    ok: int = 0
    why: str | None = None
    evidence: str | None = None
    # Metadata tokens this version does not know: kept in order and written back, never rejected.
    extra: list[str] = Field(default_factory=list)

    @field_validator("title", "why", "evidence", "tool", "sig", "sess", "ih")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is None:
            return None
        return " ".join(value.split())

    @field_validator("body")
    @classmethod
    def _no_trailing_space(cls, value: str) -> str:
        # In the store a blank line ends the body, so trailing whitespace cannot be stored faithfully;
        # dropping it here keeps the record a caller holds equal to the one the file reads back.
        return value.rstrip()

    @property
    def is_human(self) -> bool:
        return self.src in HUMAN_SOURCES

    @property
    def text(self) -> str:
        """The rule as one string: title, then body when it adds anything."""
        body = self.body.strip()
        if not body or body == self.title:
            return self.title
        return f"{self.title}\n{body}"
