"""The `Learning` record and its vocabularies (spec: Storage Format, Learning Categories)."""

from __future__ import annotations

import re
from collections import deque
from enum import Enum
from itertools import repeat

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agentuse.core.model_defaults import empty_list

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
VET_OFFLINE = "offline"  # the `vet:` token of a rule only the offline evaluator has vetted


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")


def title_said_once(title: str, body: str) -> tuple[str, str]:
    """(title, body) with the title said once. A body that opens with its own title (a note stored as
    written; a model's draft titled with its first words) would put those words into every prompt twice:
    the title becomes the body's opening sentence, the body keeps what follows, and no word is lost. A
    title that summarises the body without opening it is left alone. A title cut short with "…" opens the
    body even when it ends mid-word.

    Every read of a record applies this again, so it must change nothing the second time: where the body
    left over would open with the new title once more ("Use British spelling." then "Use British spelling
    in titles too."), taking it off again would drop words a person wrote, so the pair stays as written."""
    once = _title_opening_body(title, body)
    if once is None or _title_opening_body(*once) is not None:
        return title, body
    return once


def _title_opening_body(title: str, body: str) -> tuple[str, str] | None:
    """The body's opening sentence as the title and the rest as the body, when the body opens with the title."""
    # Most bodies do not open with their title's first letter: told from two characters (ASCII letters
    # and digits, where case-insensitive is lower()) before any copying.
    if not body or not title or (title[0].isascii() and body[0].isascii() and title[0].isalnum()
                                 and body[0].isalnum() and title[0].lower() != body[0].lower()):
        return None
    text = body.strip()
    cut = title.endswith("…")
    head = title.removesuffix("…").rstrip() if cut else title.rstrip(" .!?:;,")
    opening = opening_end(head.split(), text, word_end=not cut) if head and text else None
    if opening is None:
        return None
    end = _SENTENCE_END.search(text, opening)
    stop = len(text) if end is None else end.start() if end.group() == "\n" else end.end()
    heading = " ".join(text[:stop].split())
    # A heading written without a closing period keeps none (the line break after it separates).
    return (heading if title.endswith(".") else heading.removesuffix(".")), text[stop:].strip()


def opening_end(words: list[str], text: str, *, word_end: bool) -> int | None:
    """Where `text` stops opening with `words` (case-insensitive, any whitespace between them, and then no
    word character when `word_end`), or None. What `opening_end_by_regex` matches, without compiling a
    pattern per title (every record runs this; a store's parse compiled thousands). Where only ASCII is
    compared, case-insensitive equality is equality of lower(); a non-ASCII character may match an ASCII
    one under re's rules (K and the Kelvin sign), so that case is left to the regex."""
    # Quick no, in a few calls: where the text's first len(" ".join(words)) characters are ASCII with single
    # spaces only, an opening would be exactly those words (each gap one space), so unequal means none.
    joined = " ".join(words)
    segment = text[:len(joined)]
    if (segment.isascii() and joined.isascii() and segment.isprintable() and "  " not in segment
            and segment.lower() != joined.lower()):
        return None
    pos, size = 0, len(text)
    for index, word in enumerate(words):
        if index:
            start = pos
            while pos < size and text[pos].isspace():  # \s is str.isspace
                pos += 1
            if pos == start:
                return None
        piece = text[pos:pos + len(word)]
        if not (piece.isascii() and word.isascii()):
            return opening_end_by_regex(words, text, word_end=word_end)
        if piece.lower() != word.lower():
            return None
        pos += len(word)
    if word_end and pos < size and (text[pos].isalnum() or text[pos] == "_"):  # \w is isalnum() or "_"
        return None
    return pos


def opening_end_by_regex(words: list[str], text: str, *, word_end: bool) -> int | None:
    opening = re.match(r"\s+".join(map(re.escape, words)) + (r"(?!\w)" if word_end else ""), text,
                       flags=re.IGNORECASE)
    return None if opening is None else opening.end()


def rule_text(title: str, body: str) -> str:
    """The rule as one string: the title, then the body when it adds anything. The one definition: a
    stored rule, a model's draft and every wording the gate checks say it the same way."""
    title, body = title.strip(), body.strip()
    # A body that is the title as a sentence (its closing stop added) says nothing more: said once.
    if not body or body == title or (body[:-1] == title and body[-1:] in ".!"):
        return body or title
    return f"{title}\n{body}"


def one_line(value: str) -> str:
    """Runs of whitespace (newlines included) become one space: a one-line field stays one line."""
    # Already so (the common case, every field of every stored rule): no whitespace but single spaces
    # between words. Whitespace other than " " is never printable.
    if value.isprintable() and "  " not in value and value[:1] != " " and value[-1:] != " ":
        return value
    return " ".join(value.split())


def body_text(value: str) -> str:
    # In the store a blank line ends the body, so trailing whitespace cannot be stored faithfully;
    # dropping it keeps the record a caller holds equal to the one the file reads back.
    return value.rstrip()


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
    # Who vetted it, when that makes the verdict provisional: "offline" (the embedded offline evaluator).
    # Absent means a model vetted it, or nothing needed to (tool-errors records, files older than the token).
    vet: str | None = None
    why: str | None = None
    evidence: str | None = None
    # Metadata tokens this version does not know: kept in order and written back, never rejected.
    extra: list[str] = Field(default_factory=empty_list)

    @field_validator("title", "why", "evidence", "tool", "sig", "sess", "ih", "vet")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        return None if value is None else one_line(value)

    @field_validator("body")
    @classmethod
    def _no_trailing_space(cls, value: str) -> str:
        return body_text(value)

    @model_validator(mode="after")
    def _title_once(self) -> "Learning":
        # Every record, however it was made (capture, remember, tidy, an older store file being read).
        # Written through __dict__: assigning would validate again.
        self.__dict__["title"], self.__dict__["body"] = title_said_once(self.title, self.body)
        return self

    def stale_against(self, current_ih: str | None) -> bool:
        """Vetted against instructions that no longer exist (the one definition of stale). A rule with no
        hash predates stamping and is not stale: it stays injectable until a capture or tidy backfills it;
        with no current hash to compare, nothing is."""
        return bool(current_ih and self.ih and self.ih != current_ih)

    @property
    def is_human(self) -> bool:
        return self.src in HUMAN_SOURCES

    @property
    def provisional(self) -> bool:
        """Vetted only by the offline evaluator: re-vetted once a real model serves helper calls."""
        return self.vet == VET_OFFLINE

    @property
    def text(self) -> str:
        return rule_text(self.title, self.body)


class LazyFields:
    """A stand-in for a record's fields set (pydantic's `__pydantic_fields_set__`), which the store reader
    puts in its place: the set is made from the record's values the first time anything asks for it. An
    entry as the store writes it states exactly the fields that differ from their defaults, so the reader
    need not build a set per entry (a set of a dozen names is 700 bytes, twice the entry's text). Every
    validated assignment asks for the set (pydantic adds the assigned name), so a record whose slot still
    holds its stand-in has not been assigned since it was read: what lets `render` copy its text."""

    __slots__ = ("made_from",)

    def __init__(self, made_from) -> None:
        self.made_from = made_from  # values dict -> set of field names


_FIELDS_SET = BaseModel.__dict__["__pydantic_fields_set__"]  # the slot pydantic keeps the set in
fields_set_slot = _FIELDS_SET.__get__  # what the slot holds, a set or a LazyFields, without making one
set_fields_slot = _FIELDS_SET.__set__


def _fields_set(rule: "Learning") -> set[str]:
    fields = _FIELDS_SET.__get__(rule)
    if type(fields) is LazyFields:
        fields = fields.made_from(rule.__dict__)
        _FIELDS_SET.__set__(rule, fields)
    return fields


# pydantic reads and writes the set through the attribute (validation, copies, pickling, exclude_unset),
# so a property in the slot's place sees every use.
Learning.__pydantic_fields_set__ = property(_fields_set, _FIELDS_SET.__set__)

# The fields' defaults in declaration order; the store parser fills a copy per entry (`new_values`). The
# copy is a key-sharing dict (what a plain object's __dict__ is): its keys are stored once for all
# records, not once per record (a third of a record's dict).
_DEFAULTS = {name: None if field.is_required() or field.default_factory else field.default
             for name, field in Learning.model_fields.items()}


class _SharedKeys:
    pass


_template = _SharedKeys()
for _name, _default in _DEFAULTS.items():
    setattr(_template, _name, _default)  # one by one: how the keys come to be shared (an update would not)
_SHARED_DEFAULTS = _template.__dict__
# Every field_validator above, by the function the parser applies in its place (tests/test_store_format.py
# checks this list against the model, so a new validator cannot be silently skipped by the parser); the
# one model validator, `_title_once`, is applied by `from_parsed` itself.
PARSER_APPLIES = {"title": one_line, "why": one_line, "evidence": one_line, "tool": one_line, "sig": one_line,
                  "sess": one_line, "ih": one_line, "vet": one_line, "body": body_text}
_set = object.__setattr__


new_values = _SHARED_DEFAULTS.copy  # -> a dict of the defaults, every field's key in declaration order


def from_parsed(values: dict, fields_set: "set[str] | LazyFields") -> Learning:
    """A Learning from a complete dict (a `new_values()` copy) that is already what validation would make:
    every value of its field's type, every validator above applied. The store parser checks and normalises
    each field in its own loop, so it skips pydantic's per-field pass (a third of a large store's parse);
    this is what `model_construct` does, minus its per-field default handling. Anything else builds
    Learnings the usual way."""
    values["title"], values["body"] = title_said_once(values["title"], values["body"])  # the model validator
    return record(values, fields_set)


def record(values: dict, fields_set: "set[str] | LazyFields") -> Learning:
    """`from_parsed` for values whose title is already said once."""
    rule = Learning.__new__(Learning)
    _set(rule, "__dict__", values)
    set_fields_slot(rule, fields_set)
    _set(rule, "__pydantic_extra__", None)
    _set(rule, "__pydantic_private__", None)
    return rule


# The slots `record` fills, set through their descriptors (no attribute lookup per record).
_SET_DICT, _SET_EXTRA, _SET_PRIVATE = (BaseModel.__dict__[name].__set__
                                       for name in ("__dict__", "__pydantic_extra__", "__pydantic_private__"))


def records(values: list[dict], fields_sets: "list[set[str] | LazyFields]") -> list[Learning]:
    """`record` of each values dict with its fields set, made in C loops (`map`), one step at a time for
    all of them: for the store reader, which makes thousands at once."""
    made = list(map(Learning.__new__, repeat(Learning, len(values))))
    deque(map(_SET_DICT, made, values), 0)
    deque(map(set_fields_slot, made, fields_sets), 0)
    deque(map(_SET_EXTRA, made, repeat(None)), 0)
    deque(map(_SET_PRIVATE, made, repeat(None)), 0)
    return made
