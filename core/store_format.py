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
from array import array
import gc
import hashlib
import math
import random
import re
import secrets
from collections.abc import Callable
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentuse.core.errors import AgentuseError
from agentuse.core.learning import (
    Category,
    Channel,
    Learning,
    Source,
    State,
    body_text,
    from_parsed,
    new_values,
    one_line,
)

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
        return None if value is None else one_line(value)


def new_id(taken: set[str], rng=None) -> str:
    """8 hex characters, re-drawn on collision. Pass a `random.Random` for repeatable ids."""
    while True:
        candidate = secrets.token_hex(4) if rng is None else f"{rng.getrandbits(32):08x}"
        if candidate not in taken:
            return candidate


# ---------------------------------------------------------------- reading
# One pass over the text, and per entry a fixed number of cheap string operations when nothing is
# escaped (the common case): every escape pattern needs a backslash to undo, so a token or line without
# one is taken as it is. Each entry becomes a Learning through `learning.from_parsed`, which skips
# pydantic's per-field pass; so this loop does, field by field, everything that pass would (types from
# the readers below, and the model's own normalisers `one_line` and `body_text`).


def _enum_reader(kind) -> Callable[[str], object]:
    members = {member.value: member for member in kind}
    allowed = ", ".join(members)

    def read(value: str):
        member = members.get(value)
        if member is None:
            raise ValueError(f"use one of {allowed}")
        return member

    return read


def _count(value: str) -> int:
    if not (value.isdigit() and value.isascii()):  # exactly ^[0-9]+$: ASCII digits, at least one
        raise ValueError("expected a whole number of 0 or more")
    return int(value)


def _confidence(value: str) -> float:
    number = float(value)  # ValueError names the text
    if not math.isfinite(number):
        raise ValueError("expected a finite number")
    return number


_READERS: dict[str, Callable[[str], object]] = {
    "id": str, "confidence": _confidence, "injected": _count, "applied": _count,
    "src": _enum_reader(Source), "ch": _enum_reader(Channel), "ih": one_line, "sess": one_line,
    "tool": one_line, "sig": one_line, "re": _count, "ok": _count, "state": _enum_reader(State),
    "vet": one_line,
}
_CATEGORIES = {category.value: category for category in Category}
_ALWAYS_SET = frozenset({"id", "category", "title", "body", "extra", "date"})  # what every entry states
_AS_WRITTEN = ""  # not a field: marks, in _canonical_meta's answer, a line render writes as it is


# A value the token loop keeps exactly as it is, one_line included: no "|" or backslash, single spaces only
# between words, none at either end.
_V = r"[^|\\\s]++(?: [^|\\\s]++)*+"
# The metadata line as render() writes it: known tokens in its order, each at most once, " | " between, no
# escapes, no unknown tokens. A line that matches means exactly what the token loop would make of it (each
# token is "key:value" with a key the loop knows, or the one date), so it is read from the groups in one
# regex call; anything else (other order, applied:, escapes, extra tokens, odd spacing, errors) goes
# through the token loop.
_CANONICAL_META = re.compile(
    rf"<!-- (?:id:({_V}) \| )?(?:confidence:([0-9]++(?:\.[0-9]++)?+) \| )?"
    r"injected:([0-9]++) \| src:(auto|approval|manual)(?: \| ch:(corrections|tool-errors|custom|agent))?"
    rf"(?: \| ih:({_V}))?(?: \| sess:({_V}))?(?: \| tool:({_V}))?(?: \| sig:({_V}))?"
    r"(?: \| re:([0-9]++))?(?: \| ok:([0-9]++))?(?: \| state:(active|graduated|quarantined|retired))?"
    rf"(?: \| vet:({_V}))? \| ([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}) -->")
_SOURCES = {member.value: member for member in Source}
_CHANNELS = {member.value: member for member in Channel}
_STATES = {member.value: member for member in State}
_REAL_DATES: dict[str, str] = {}  # date text -> itself once checked real (so entries share one string)
# Value text -> the one object entries share for it: a store holds few distinct instruction hashes,
# sessions, tools, signatures, vetters and (two-decimal) confidences, and one copy per entry would be a
# good part of a parsed store's memory. Bounded like _REAL_DATES, for a long-lived process.
_SHARED: dict[str, str] = {}
_CONFIDENCES: dict[str, float] = {}
_SHARED_KEPT = 100_000


def _shared(text: str, make=str, table: dict = _SHARED):
    known = table.get(text)
    if known is None:
        known = make(text)
        if len(table) < _SHARED_KEPT:
            table[text] = known
    return known


def _canonical_meta(meta: re.Match, values: dict) -> set[str] | None:
    """Fill `values` from a _CANONICAL_META match; the fields stated, with those every entry states (and
    `_AS_WRITTEN` when render would write this very line); None when its date is not real (the loop says so)."""
    rule_id, confidence, injected, src, ch, ih, sess, tool, sig, re_, ok, state, vet, date = meta.groups()
    known = _REAL_DATES.get(date)
    if known is None:
        try:
            datetime.date.fromisoformat(date)
        except ValueError:
            return None
        if len(_REAL_DATES) < _SHARED_KEPT:
            _REAL_DATES[date] = date
        known = date
    values["date"] = known
    values["injected"] = int(injected)
    values["src"] = _SOURCES[src]
    values["extra"] = []
    stated = {"injected", "src", "id", "category", "title", "body", "extra", "date"}  # with _ALWAYS_SET
    # What render writes differently from what this pattern accepts: a default (state:active, re:0, ok:0),
    # a number's form (leading zeros, confidence other than two decimals), an escape ("--" in a value: the
    # line has "--" only in "<!--" and "-->" otherwise).
    if not (state == "active" or (injected[0] == "0" and injected != "0") or (re_ is not None and re_[0] == "0")
            or (ok is not None and ok[0] == "0") or meta.string.count("--", *meta.span()) != 2):
        stated.add(_AS_WRITTEN)
    if rule_id is not None:
        values["id"] = rule_id
        stated.add("id")
    if confidence is not None:
        values["confidence"] = number = _shared(confidence, float, _CONFIDENCES)
        stated.add("confidence")
        if f"{number:.2f}" != confidence:
            stated.discard(_AS_WRITTEN)
    if ch is not None:
        values["ch"] = _CHANNELS[ch]
        stated.add("ch")
    if ih is not None:
        values["ih"] = _shared(ih)
        stated.add("ih")
    if sess is not None:
        values["sess"] = _shared(sess)
        stated.add("sess")
    if tool is not None:
        values["tool"] = _shared(tool)
        stated.add("tool")
    if sig is not None:
        values["sig"] = _shared(sig)
        stated.add("sig")
    if re_ is not None:
        values["re"] = int(re_)
        stated.add("re")
    if ok is not None:
        values["ok"] = int(ok)
        stated.add("ok")
    if state is not None:
        values["state"] = _STATES[state]
        stated.add("state")
    if vet is not None:
        values["vet"] = _shared(vet)
        stated.add("vet")
    return stated


def _parse_meta(content: str, values: dict, entry: int, error) -> set[str]:
    """Fill `values` from the metadata comment (on the line after the heading at offset `entry`);
    return the field names it stated."""
    stated: set[str] = set()
    extra: list[str] = []
    date_seen = False
    applied = None
    escaped = "\\" in content
    for raw in (_SEPARATOR.split(content) if escaped else content.split("|")):
        token = raw.strip()
        if escaped and "\\" in token:
            token = _unescape_value(token)
        if not token:
            continue
        if token[0].isdigit() and (date := _DATE.match(token)):  # \d needs a digit first
            if date_seen:
                raise error(entry, 1, "the metadata comment has two dates")
            try:
                datetime.date.fromisoformat(date[1])
            except ValueError:
                raise error(entry, 1, f"'{token}' is not a real date") from None
            values["date"] = date[1]
            date_seen = True
            continue
        key, colon, value = token.partition(":")
        reader = _READERS.get(key) if colon else None
        if reader is None:
            extra.append(token)  # unknown tokens are kept and written back, never rejected
            continue
        if key in stated:
            raise error(entry, 1, f"'{key}:' appears twice in the metadata comment")
        value = value.strip()
        try:
            parsed = reader(value)
        except ValueError as problem:
            raise error(entry, 1, f"bad value for '{key}:' ({value!r}): {problem}") from None
        if key == "applied":
            applied = parsed  # the pre-v0.19.0 name of injected:, which wins when both appear
            stated.add(key)
        elif key != "id" or parsed:  # an empty id: is no id (a fresh one is drawn)
            values[key] = parsed
            stated.add(key)
    if not date_seen:
        raise error(entry, 1, "the metadata comment has no date (YYYY-MM-DD); it is the one field every entry needs")
    values["extra"] = extra
    if applied is not None:
        stated.discard("applied")
        if "injected" not in stated:
            values["injected"] = applied
            stated.add("injected")
    return stated


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


def _inline(text: str) -> str:
    return unescape_inline(text) if "\\" in text else text


def _parse_entry(text: str, first: int, end: int, error, last: bool) -> tuple[Learning, bool]:
    """The entry that is `text[first:end]` (its heading line first), and whether
    `render_entry` writes it back as exactly that text, less the blank line after it unless `last`
    (`_as_rendered`). Lines are found with str.find: only a body holding the retired section is split."""
    cut = text.find("\n", first, end)
    head = text[first:end if cut < 0 else cut]
    heading = _HEADING.match(head.rstrip())
    if not heading:
        raise error(first, 0, "malformed entry heading; expected '### [category] title'")
    category = _CATEGORIES.get(heading[1])
    if category is None:
        raise error(first, 0, f"unknown category '{heading[1]}'; use one of "
                    + ", ".join(c.value for c in Category))
    values = new_values()
    if cut < 0:
        raise error(first, 0, "entry has no metadata comment; it needs at least a date: <!-- 2026-01-27 -->")
    line_end = text.find("\n", cut + 1, end)  # where the last line read so far ends
    line_end = end if line_end < 0 else line_end
    meta_line = text[cut + 1:line_end]
    at = min(line_end + 1, end)  # where the next line starts
    if not ((fast := _CANONICAL_META.fullmatch(meta_line)) and (stated := _canonical_meta(fast, values)) is not None):
        fast = None
        if not (meta := _COMMENT.match(meta_line)):
            raise error(first, 0, "entry has no metadata comment; it needs at least a date: <!-- 2026-01-27 -->")
        stated = _parse_meta(meta[1].strip(), values, first, error) | _ALWAYS_SET
    cursor, notes = 2, []  # line index into the entry; the note lines
    while text.startswith("<!--", at, end):
        stop = text.find("\n", at, end)
        stop = end if stop < 0 else stop
        note_line = text[at:stop]
        if not (note := _NOTE.match(note_line)):
            break
        key = note[1]
        if key in stated:
            raise error(first, cursor, f"a second '{key}:' comment for this entry")
        values[key] = one_line(_inline(note[2].strip()))
        stated.add(key)
        notes.append(note_line)
        cursor += 1
        line_end, at = stop, min(stop + 1, end)
    body = text[at:end]
    if RETIRED_SECTION in body:  # cheap test first: the section line must contain the heading text
        lines = body.split("\n")
        stripped = [line.rstrip() for line in lines]
        if RETIRED_SECTION in stripped:
            cut = stripped.index(RETIRED_SECTION)
            if any(line.strip() for line in lines[cut + 1:]):
                raise error(first, cursor + cut + 1, f"unexpected text after '{RETIRED_SECTION}'")
            body = "\n".join(lines[:cut])
    if "\\" in body:
        body = "\n".join(_unescape_body_line(line) for line in body.split("\n"))
    values["id"] = values["id"] or ""
    values["category"] = category
    values["title"] = one_line(_inline(heading[2] or ""))
    values["body"] = body_text(body)
    as_written = _AS_WRITTEN in stated
    if as_written:
        stated.discard(_AS_WRITTEN)
    rule = from_parsed(values, stated)
    # The text render_entry would write ends here: the blank line after it is render's separator.
    shown, body = (end if last else end - 1), values["body"]
    return rule, (as_written
                  and (text.startswith(body, at) and at + len(body) == shown if body else line_end == shown)
                  and _as_rendered(values, head, notes))


def _as_rendered(d: dict, head: str, notes: list[str]) -> bool:
    """Whether an entry's lines are exactly `render_entry` of the record read from them, given that its
    metadata line is as render writes it (_canonical_meta said so) and its body is the record's (the caller
    checks that). Only a yes is acted on (render reuses the text), so every doubt is a no: the entry is
    then rendered as usual. Compared with what the renderer would write from the record. (An entry without
    an id, or with one already taken, is given one after the snapshot render compares.)"""
    title, category = d["title"], d["category"].value
    if "--" in title or head != (f"### [{category}] {title}" if title else f"### [{category}]"):
        return False
    if notes and (any("--" in d[key] for key in ("why", "evidence") if d[key] is not None)
                  or notes != [f"<!-- {key}: {d[key]} -->" for key in ("why", "evidence") if d[key] is not None]):
        return False
    return "#" not in d["body"] and "--" not in d["body"]  # else escaped line by line


def parse(text: str, *, filename: str = "<learnings>", include_retired: bool = False, rng=None) -> StoreDoc:
    """Read a learnings file. `state:retired` entries are skipped unless `include_retired` (archives).

    Entries without an id, or repeating an earlier id in a live store, get a fresh one, the same on every
    read of the same text (or drawn from `rng`); it is written to the file on the next save.
    """
    # The parse makes no reference cycles, so collector passes while it allocates thousands of records
    # find nothing and only cost time (a third of a 10,000-rule parse).
    paused = gc.isenabled()
    gc.disable()
    try:
        return _parse(text, filename, include_retired, rng)
    finally:
        if paused:
            gc.enable()


def _parse(text: str, filename: str, include_retired: bool, rng) -> StoreDoc:
    def error(index: int, message: str) -> StoreFormatError:
        return StoreFormatError(filename, index + 1, message)

    def error_at(entry: int, lines: int, message: str) -> StoreFormatError:
        # Counted only when there is an error: `lines` lines after the heading at offset `entry`.
        return StoreFormatError(filename, text.count("\n", 0, entry) + lines + 1, message)

    # The lines are text.split("\n") less the empty one after a final newline; an entry is every run of
    # lines from one that starts with "### " to the next. Found with str.find and cut one entry at a time,
    # so the whole file is never held a second time as a list of lines.
    stop = len(text) - 1 if text.endswith("\n") else len(text)
    first = 0 if text.startswith("### ", 0, stop) else text.find("\n### ", 0, stop) + 1 or -1
    preamble = text[:stop] if first < 0 else text[:max(first - 1, 0)] if first else ""
    name, agent = _parse_preamble(preamble.split("\n") if first else [], error)
    learnings = ParsedRules()
    learnings.source, spans, bounds = text, learnings.spans, learnings.bounds
    while first >= 0:
        following = text.find("\n### ", first, stop)
        end = stop if following < 0 else following
        entry, as_rendered = _parse_entry(text, first, end, error_at, following < 0)
        if include_retired or entry.state is not State.retired:
            learnings.append(entry)
            # Taken before ids are drawn below: an entry given a new id no longer matches its lines.
            spans.append((entry, *entry.__dict__.values()) if as_rendered else None)
            bounds.extend((first, end - (following >= 0)))
        first = following + 1 if following >= 0 else -1
    taken = {entry.id for entry in learnings if entry.id}
    seen: set[str] = set()
    for entry in learnings:
        # Archives may hold one rule retired twice; a live store's ids must be unique to be addressable.
        if not entry.id or (entry.id in seen and not include_retired):
            if rng is None:
                # Drawn from the file's own text: until the next save, every read (the list, --json, the
                # serve tab) gives an id-less entry the same id, so what one view shows another can act on.
                rng = random.Random(hashlib.sha256(text.encode("utf-8")).digest())
            entry.id = new_id(taken, rng)
            taken.add(entry.id)
            learnings.drawn = True
        seen.add(entry.id)
    return StoreDoc.model_construct(name=one_line(name), agent=None if agent is None else one_line(agent),
                                    learnings=learnings)


class ParsedRules(list):
    """The learnings list `parse` returns: a plain list of the records, which also remembers where in the
    file's text each record's entry is, when that text is exactly what `render_entry` writes for the record
    as read (`_as_rendered`), with a snapshot of the record's values. `render` copies such an entry's text
    instead of rendering it again while the record still holds the very same values, so writing back a
    store after changing a few records renders only those (a recorded injection changes one counter per
    rule sent). Any other list (a doc built or assigned anew) renders every record."""

    __slots__ = ("source", "spans", "bounds", "drawn")

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.source = ""
        self.spans: list[tuple | None] = []  # per entry read: (record, *its values), or None
        self.bounds = array("q")  # per entry read: where its text starts and ends in `source`
        self.drawn = False  # parse gave some entry a new id


# ---------------------------------------------------------------- writing


# Each escape needs a "--" (comment delimiters), a "|" (values) or a "#" (body lines) to act on, so text
# without them is written as it is, without running the patterns.


def _value(text: str) -> str:
    return _escape_value(text) if "|" in text or "--" in text else text


def _meta_line(d: dict) -> str:
    # Order follows the spec's examples: id, confidence, injected, src, ch, ih, then the optional tokens
    # (vet: last of them), unknown tokens kept from the file, and the date last. Defaults are omitted except
    # injected and src, which the spec's examples always show.
    tokens = [f"id:{_value(d['id'])}"] if d["id"] else []
    if (confidence := d["confidence"]) is not None:
        tokens.append(f"confidence:{confidence:.2f}")
    tokens.append(f"injected:{d['injected']}")
    tokens.append(f"src:{d['src'].value}")
    if (ch := d["ch"]) is not None:
        tokens.append(f"ch:{ch.value}")
    for key in ("ih", "sess", "tool", "sig"):
        if (value := d[key]) is not None:
            tokens.append(f"{key}:{_value(value)}")
    if d["re"]:
        tokens.append(f"re:{d['re']}")
    if d["ok"]:
        tokens.append(f"ok:{d['ok']}")
    if (state := d["state"]) is not State.active:
        tokens.append(f"state:{state.value}")
    if (vet := d["vet"]) is not None:
        tokens.append(f"vet:{_value(vet)}")
    if extra := d["extra"]:
        tokens += [_value(token) for token in extra]
    tokens.append(d["date"])
    return f"<!-- {' | '.join(tokens)} -->"


def _writable(d: dict) -> bool:
    # What _check_writable accepts, tested without a regex: exactly ^\d{4}-\d{2}-\d{2}$ (\d is isdecimal).
    date, confidence = d["date"], d["confidence"]
    return (len(date) == 10 and date[4] == "-" and date[7] == "-" and date[:4].isdecimal()
            and date[5:7].isdecimal() and date[8:].isdecimal()
            and (confidence is None or math.isfinite(confidence)) and min(d["injected"], d["re"], d["ok"]) >= 0)


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
    d = rule.__dict__
    if not _writable(d):
        _check_writable(rule)
    title = d["title"]
    if "--" in title:
        title = escape_inline(title)
    heading = f"### [{d['category'].value}] {title}" if title else f"### [{d['category'].value}]"
    lines = [heading, _meta_line(d)]
    if (why := d["why"]) is not None:
        lines.append(f"<!-- why: {escape_inline(why) if '--' in why else why} -->")
    if (evidence := d["evidence"]) is not None:
        lines.append(f"<!-- evidence: {escape_inline(evidence) if '--' in evidence else evidence} -->")
    if body := d["body"]:
        lines.append("\n".join(_escape_body_line(line) for line in body.split("\n"))
                     if "#" in body or "--" in body else body)
    return "\n".join(lines)


def _header(doc: StoreDoc) -> str:
    header = f"# Learnings for {escape_inline(doc.name)}" if doc.name else "# Learnings for"
    return header if doc.agent is None else f"{header}\n<!-- agent: {escape_inline(doc.agent)} -->"


def render(doc: StoreDoc) -> str:
    """The file text for a doc; `parse(render(doc)) == doc` and `render(parse(text)) == text`."""
    rules, header = doc.learnings, _header(doc)
    if not isinstance(rules, ParsedRules):
        return "\n\n".join([header, *map(render_entry, rules)]) + "\n"
    source, parts = rules.source, _reused(rules)
    # Every entry as read, up to the final newline (one run that ends there), with render's header and blank line.
    if (len(parts) == 1 and parts[0] == (len(header) + 2, len(source) - 1)
            and source.startswith("\n\n", len(header)) and source.startswith(header)):
        return source
    pieces = [header]
    for part in parts:
        pieces += ("\n\n", part if isinstance(part, str) else source[part[0]:part[1]])
    pieces.append("\n")
    return "".join(pieces)


class Verbatim(NamedTuple):
    """A store's text that `render` of its parse gives back as it is, with each record's id and where its
    entry starts: what `bump` needs to count in place."""

    text: str
    ids: tuple[str, ...]
    starts: array


def verbatim(doc: StoreDoc, text: str) -> Verbatim | None:
    """`text` as a Verbatim when `render(doc) == text`, for a doc `parse(text)` has just made (its records
    not changed since); else None. Told from what parse noted, without rendering: every entry is its
    record's rendering, and the header and the blank lines between are render's own."""
    rules = doc.learnings
    if not isinstance(rules, ParsedRules) or rules.source is not text or rules.drawn:
        return None
    at = len(_header(doc)) + 2  # where render puts the first entry
    if not text.startswith(_header(doc)):
        return None
    bounds = rules.bounds
    for index, span in enumerate(rules.spans):
        if span is None or bounds[2 * index] != at or text[at - 2:at] != "\n\n":
            return None
        at = bounds[2 * index + 1] + 2
    if not (len(text) == at - 1 and text.endswith("\n") if rules else text == _header(doc) + "\n"):
        return None
    return Verbatim(text, tuple(span[1] for span in rules.spans), bounds[::2])  # span[1]: the id as read


def bump(known: Verbatim, ids: set[str], counter: str) -> Verbatim:
    """`render` of the doc `parse(known.text)` gives after adding one to `counter` of the records in
    `ids`: only those records' metadata lines (each the line after its heading) are rendered again."""
    text, starts = known.text, known.starts
    pieces, at, moved = [], 0, []  # moved: (index, characters the line grew by)
    for index in [index for index, rule_id in enumerate(known.ids) if rule_id in ids]:
        start = text.index("\n", starts[index]) + 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        meta = _CANONICAL_META.fullmatch(text, start, end)
        values = new_values()
        if meta is None or _canonical_meta(meta, values) is None:
            raise ValueError(f"bump needs a Verbatim text; the line at {start} is not a metadata line")
        values[counter] += 1
        line = _meta_line(values)
        pieces += [text[at:start], line]
        at = end
        if len(line) != end - start:
            moved.append((index, len(line) - (end - start)))
    if moved:  # the entries after a line that grew start later
        starts, shift = array("q", starts), 0
        for (index, grew), (following, _) in zip(moved, [*moved[1:], (len(starts) - 1, 0)], strict=True):
            shift += grew
            starts[index + 1:following + 1] = array("q", [start + shift for start in starts[index + 1:following + 1]])
    return Verbatim("".join([*pieces, text[at:]]), known.ids, starts)


_CONFIDENCE = 1 + list(Learning.model_fields).index("confidence")  # in a span: (record, *values)


def _reused(rules: ParsedRules) -> list[str | tuple[int, int]]:
    """Each record's entry: where its text is in the file when the record holds the values it was read
    with (consecutive ones as one (start, end), the blank lines between included), rendered otherwise.
    Values compare equal (assignment validates, so an equal value is of the same type
    and renders the same), except the confidence, which must be the same object (-0.0 == 0.0 renders
    "-0.00"), and `extra`, a list that may have grown in place, which must still be empty."""
    source, spans, bounds = rules.source, rules.spans, rules.bounds
    at: dict[int, int] | None = None  # id(record) -> index into spans, built if the list was reordered
    out: list[str | tuple[int, int]] = []
    start = end = -1  # the run of reused entries not yet copied: one slice, the blank lines between included
    for index, rule in enumerate(rules):
        where = index
        span = spans[index] if index < len(spans) else None
        if span is None or span[0] is not rule:
            if at is None:  # the spans hold their records, so no id here can be a new object's
                at = {id(span[0]): where for where, span in enumerate(spans) if span is not None}
            where = at.get(id(rule))
            span = None if where is None else spans[where]
        if span is not None:
            values = rule.__dict__
            if (span == (rule, *values.values()) and values["confidence"] is span[_CONFIDENCE]
                    and not values["extra"]):
                if bounds[2 * where] == end + 2 and source.startswith("\n\n", end):
                    end = bounds[2 * where + 1]
                    continue
                if start >= 0:
                    out.append((start, end))
                start, end = bounds[2 * where], bounds[2 * where + 1]
                continue
        if start >= 0:
            out.append((start, end))
            start = end = -1
        out.append(render_entry(rule))
    if start >= 0:
        out.append((start, end))
    return out
