"""Markdown text <-> learning records, following the spec's "Storage Format" to the letter.

    # Learnings for <name>
    <!-- agent: <agent path relative to the project root> -->

    ### [category] title
    <!-- id:a1b2c3d4 | confidence:0.92 | injected:3 | src:auto | ... | 2026-01-27 -->
    <!-- why: ... -->          (optional)
    <!-- evidence: ... -->     (optional)
    body lines

Rule text is data, so it is escaped where it could pass for structure. Each escape adds one backslash
(markdown renders `\\!`, `\\>` and `\\#` as the bare character, so the file still reads naturally), and a
run that already holds backslashes just gains one more, which makes every escape exactly reversible:
- `<!--` and `-->` anywhere in text become `<\\!--` and `--\\>`: text cannot open or close a comment,
  so it cannot forge a metadata line or a learned-block marker;
- a body line starting with `#` (after indentation) becomes `\\#...`: text cannot start an entry or heading;
- inside the metadata comment `|` becomes `\\|`: a value cannot split into two tokens.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import random
import re
import secrets
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentuse.core.errors import AgentuseError
from agentuse.core.learning import Category, Channel, Learning, Source, State

RETIRED_SECTION = "## Retired"  # older upstream files parked retired entries under this heading

_OPEN, _OPEN_ESC = re.compile(r"<(\\*)!--"), re.compile(r"<\\(\\*)!--")
_CLOSE, _CLOSE_ESC = re.compile(r"--(\\*)>"), re.compile(r"--\\(\\*)>")
_HASH, _HASH_ESC = re.compile(r"^([ \t]*)(\\*)#"), re.compile(r"^([ \t]*)\\(\\*)#")
_PIPE, _PIPE_ESC = re.compile(r"(\\*)\|"), re.compile(r"\\(\\*)\|")
_SEPARATOR = re.compile(r"(?<!\\)\|")  # an escaped pipe always has a backslash in front

_HEADER = re.compile(r"^# Learnings for(?: (.*))?$")
_AGENT = re.compile(r"^<!--\s*agent:(.*)-->\s*$")
_HEADING = re.compile(r"^### \[([^\]]*)\](?: (.*))?$")
_COMMENT = re.compile(r"^<!--(.*)-->\s*$")
_NOTE = re.compile(r"^<!--\s*(why|evidence):(.*)-->\s*$")
# Upstream once wrote ISO timestamps; they are read as their calendar day.
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$")
_COUNT = re.compile(r"^[0-9]+$")


def escape_inline(text: str) -> str:
    """Escape comment delimiters in one line of rule text (titles, why/evidence, values)."""
    text = _OPEN.sub(lambda m: "<\\" + m[1] + "!--", text)
    return _CLOSE.sub(lambda m: "--\\" + m[1] + ">", text)


def unescape_inline(text: str) -> str:
    text = _CLOSE_ESC.sub(lambda m: "--" + m[1] + ">", text)
    return _OPEN_ESC.sub(lambda m: "<" + m[1] + "!--", text)


def _escape_body_line(line: str) -> str:
    return _HASH.sub(lambda m: m[1] + "\\" + m[2] + "#", escape_inline(line))


def _unescape_body_line(line: str) -> str:
    return unescape_inline(_HASH_ESC.sub(lambda m: m[1] + m[2] + "#", line))


def _escape_value(text: str) -> str:
    return _PIPE.sub(lambda m: "\\" + m[1] + "|", escape_inline(text))


def _unescape_value(text: str) -> str:
    return unescape_inline(_PIPE_ESC.sub(lambda m: m[1] + "|", text))


class StoreFormatError(ValueError, AgentuseError):
    """A learnings file that cannot be read; names the file and the 1-based line. An AgentuseError, so
    every surface reports it as one line and exits 1 instead of printing a traceback."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file, self.line, self.message = file, line, message

    def __reduce__(self):  # survive pickling across processes (the default would lose file/line)
        return (type(self), (self.file, self.line, self.message))


class StoreDoc(BaseModel):
    """One learnings file: its breadcrumb header and its entries in file order."""

    model_config = ConfigDict(validate_assignment=True)

    name: str
    agent: str | None = None
    learnings: list[Learning] = Field(default_factory=list)

    @field_validator("name", "agent")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        return None if value is None else " ".join(value.split())


def new_id(taken: set[str], rng=None) -> str:
    """8 hex characters, re-drawn on collision. Pass a `random.Random` for repeatable ids."""
    while True:
        candidate = secrets.token_hex(4) if rng is None else f"{rng.getrandbits(32):08x}"
        if candidate not in taken:
            return candidate


# ---------------------------------------------------------------- reading


def _enum_reader(kind) -> Callable[[str], object]:
    def read(value: str):
        try:
            return kind(value)
        except ValueError:
            raise ValueError(f"use one of {', '.join(member.value for member in kind)}") from None

    return read


def _count(value: str) -> int:
    if not _COUNT.match(value):
        raise ValueError("expected a whole number of 0 or more")
    return int(value)


def _confidence(value: str) -> float:
    number = float(value)  # ValueError names the text
    if not math.isfinite(number):
        raise ValueError("expected a finite number")
    return number


_READERS: dict[str, Callable[[str], object]] = {
    "id": str, "confidence": _confidence, "injected": _count, "applied": _count,
    "src": _enum_reader(Source), "ch": _enum_reader(Channel), "ih": str, "sess": str,
    "tool": str, "sig": str, "re": _count, "ok": _count, "state": _enum_reader(State),
}


def _parse_meta(content: str, fail: Callable[[str], StoreFormatError]) -> dict:
    fields: dict = {"extra": []}
    applied = None
    for raw in _SEPARATOR.split(content):
        token = _unescape_value(raw.strip())
        if not token:
            continue
        if date := _DATE.match(token):
            if "date" in fields:
                raise fail("the metadata comment has two dates")
            try:
                datetime.date.fromisoformat(date[1])
            except ValueError:
                raise fail(f"'{token}' is not a real date") from None
            fields["date"] = date[1]
            continue
        key, colon, value = token.partition(":")
        if not colon or key not in _READERS:
            fields["extra"].append(token)  # unknown tokens are kept and written back, never rejected
            continue
        if key in fields or (key == "applied" and applied is not None):
            raise fail(f"'{key}:' appears twice in the metadata comment")
        try:
            parsed = _READERS[key](value.strip())
        except ValueError as problem:
            raise fail(f"bad value for '{key}:' ({value.strip()!r}): {problem}") from None
        if key == "applied":
            applied = parsed  # the pre-v0.19.0 name of injected:, which wins when both appear
        elif key != "id" or parsed:
            fields[key] = parsed
    if "date" not in fields:
        raise fail("the metadata comment has no date (YYYY-MM-DD); it is the one field every entry needs")
    if applied is not None and "injected" not in fields:
        fields["injected"] = applied
    return fields


def _parse_preamble(lines: list[str], error) -> tuple[str, str | None]:
    name: str | None = None
    agent: str | None = None
    for index, line in enumerate(lines):
        if not line.strip() or line.rstrip() == RETIRED_SECTION:
            continue
        if name is None and agent is None and (header := _HEADER.match(line.rstrip())):
            name = unescape_inline(header[1] or "")
        elif agent is None and (crumb := _AGENT.match(line)):
            agent = unescape_inline(crumb[1].strip())
        else:
            raise error(index, "unexpected text before the first entry; entries start with '### [category] title'")
    return name or "", agent


def _parse_entry(lines: list[str], start: int, end: int, error) -> Learning:
    heading = _HEADING.match(lines[start].rstrip())
    if not heading:
        raise error(start, "malformed entry heading; expected '### [category] title'")
    try:
        category = Category(heading[1])
    except ValueError:
        raise error(start, f"unknown category '{heading[1]}'; use one of "
                    + ", ".join(c.value for c in Category)) from None
    meta = _COMMENT.match(lines[start + 1]) if start + 1 < end else None
    if not meta:
        raise error(start, "entry has no metadata comment; it needs at least a date: <!-- 2026-01-27 -->")
    fields = _parse_meta(meta[1].strip(), lambda message: error(start + 1, message))
    cursor = start + 2
    while cursor < end and (note := _NOTE.match(lines[cursor])):
        if note[1] in fields:
            raise error(cursor, f"a second '{note[1]}:' comment for this entry")
        fields[note[1]] = unescape_inline(note[2].strip())
        cursor += 1
    body = lines[cursor:end]
    if RETIRED_SECTION in (stripped := [line.rstrip() for line in body]):
        cut = stripped.index(RETIRED_SECTION)
        if any(line.strip() for line in body[cut + 1:]):
            raise error(cursor + cut + 1, f"unexpected text after '{RETIRED_SECTION}'")
        body = body[:cut]
    try:
        return Learning(id=fields.pop("id", ""), category=category, title=unescape_inline(heading[2] or ""),
                        body="\n".join(_unescape_body_line(line) for line in body), **fields)
    except ValidationError as problem:
        raise error(start, f"invalid entry: {problem.errors()[0]['msg']}") from None


def parse(text: str, *, filename: str = "<learnings>", include_retired: bool = False, rng=None) -> StoreDoc:
    """Read a learnings file. `state:retired` entries are skipped unless `include_retired` (archives).

    Entries without an id, or repeating an earlier id in a live store, get a fresh one, the same on every
    read of the same text (or drawn from `rng`); it is written to the file on the next save.
    """
    def error(index: int, message: str) -> StoreFormatError:
        return StoreFormatError(filename, index + 1, message)

    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the final newline ends the last line; it does not add an empty one
    starts = [index for index, line in enumerate(lines) if line.startswith("### ")]
    name, agent = _parse_preamble(lines[: starts[0] if starts else len(lines)], error)
    learnings = []
    for start, end in zip(starts, [*starts[1:], len(lines)]):
        entry = _parse_entry(lines, start, end, error)
        if include_retired or entry.state is not State.retired:
            learnings.append(entry)
    taken = {entry.id for entry in learnings if entry.id}
    if rng is None:
        # Drawn from the file's own text: until the next save, every read (the list, --json, the serve tab)
        # gives an id-less entry the same id, so what one view shows another can act on.
        rng = random.Random(hashlib.sha256(text.encode("utf-8")).digest())
    seen: set[str] = set()
    for entry in learnings:
        # Archives may hold one rule retired twice; a live store's ids must be unique to be addressable.
        if not entry.id or (entry.id in seen and not include_retired):
            entry.id = new_id(taken, rng)
            taken.add(entry.id)
        seen.add(entry.id)
    return StoreDoc(name=name, agent=agent, learnings=learnings)


# ---------------------------------------------------------------- writing


def _tokens(rule: Learning) -> list[str]:
    # Order follows the spec's examples: id, confidence, injected, src, ch, ih, then the optional tokens,
    # unknown tokens kept from the file, and the date last. Defaults are omitted except injected and src,
    # which the spec's examples always show.
    tokens = [f"id:{_escape_value(rule.id)}"] if rule.id else []
    if rule.confidence is not None:
        tokens.append(f"confidence:{rule.confidence:.2f}")
    tokens += [f"injected:{rule.injected}", f"src:{rule.src.value}"]
    if rule.ch is not None:
        tokens.append(f"ch:{rule.ch.value}")
    for key in ("ih", "sess", "tool", "sig"):
        if (value := getattr(rule, key)) is not None:
            tokens.append(f"{key}:{_escape_value(value)}")
    tokens += [f"{key}:{value}" for key, value in (("re", rule.re), ("ok", rule.ok)) if value]
    if rule.state is not State.active:
        tokens.append(f"state:{rule.state.value}")
    tokens += [_escape_value(token) for token in rule.extra]
    return [*tokens, rule.date]


def _check_writable(rule: Learning) -> None:
    # Never write what parse() would refuse: the file would then be stuck until fixed by hand.
    problems = []
    if not _DATE.match(rule.date) or len(rule.date) != 10:
        problems.append(f"date {rule.date!r} is not YYYY-MM-DD")
    if rule.confidence is not None and not math.isfinite(rule.confidence):
        problems.append("confidence is not a finite number")
    if min(rule.injected, rule.re, rule.ok) < 0:
        problems.append("a counter is negative")
    if problems:
        raise ValueError(f"cannot store learning {rule.id or rule.title!r}: {'; '.join(problems)}")


def render_entry(rule: Learning) -> str:
    """One entry, without the blank line that separates it from the next."""
    _check_writable(rule)
    title = escape_inline(rule.title)
    lines = [f"### [{rule.category.value}] {title}" if title else f"### [{rule.category.value}]",
             f"<!-- {' | '.join(_tokens(rule))} -->"]
    for key in ("why", "evidence"):
        if (value := getattr(rule, key)) is not None:
            lines.append(f"<!-- {key}: {escape_inline(value)} -->")
    if rule.body:
        lines += [_escape_body_line(line) for line in rule.body.split("\n")]
    return "\n".join(lines)


def render(doc: StoreDoc) -> str:
    """The file text for a doc; `parse(render(doc)) == doc` and `render(parse(text)) == text`."""
    header = [f"# Learnings for {escape_inline(doc.name)}" if doc.name else "# Learnings for"]
    if doc.agent is not None:
        header.append(f"<!-- agent: {escape_inline(doc.agent)} -->")
    return "\n\n".join(["\n".join(header), *(render_entry(rule) for rule in doc.learnings)]) + "\n"
