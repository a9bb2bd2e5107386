"""The text of a learnings file -> records (`parse`), following the spec's "Storage Format" to the letter.

One pass over the text. An entry exactly as render writes it is read by store_canonical in one regex call;
any other by `_parse_entry` here, line by line, with a fixed number of cheap string operations when
nothing is escaped: every escape pattern needs a backslash to undo, so a token or line without one is
taken as it is. Either way the entry becomes a Learning without pydantic's per-field pass
(`learning.from_parsed`), so both do, field by field, everything that pass would (types from
store_meta's readers, and the model's own normalisers `one_line` and `body_text`), and fail with the
same file:line messages (tests/test_store_format_baseline.py holds both to the reader they replaced).
"""

from __future__ import annotations

import gc
import hashlib
import random
import re
from operator import attrgetter

from agentuse.core.learning import Category, Learning, body_text, from_parsed, new_values, one_line, set_fields_slot
from agentuse.core.store_canonical import read_entries
from agentuse.core.store_doc import RETIRED_SECTION, ParsedRules, StoreDoc, StoreFormatError, new_id
from agentuse.core.store_escape import unescape_body_line, unescape_if_needed, unescape_inline
from agentuse.core.store_meta import (
    ALWAYS_SET,
    AS_WRITTEN,
    CANONICAL_META,
    CATEGORIES,
    STATED_AS_WRITTEN,
    canonical_meta,
    parse_meta,
)

_HEADER = re.compile(r"^# Learnings for(?: (.*))?$")
_AGENT = re.compile(r"^<!--\s*agent:(.*)-->\s*$")
_HEADING = re.compile(r"^### \[([^\]]*)\](?: (.*))?$")
_COMMENT = re.compile(r"^<!--(.*)-->\s*$")
_NOTE = re.compile(r"^<!--\s*(why|evidence):(.*)-->\s*$")
_ID = attrgetter("id")


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


def _parse_entry(text: str, first: int, end: int, error, last: bool) -> tuple[Learning, bool]:
    """The entry that is `text[first:end]` (its heading line first), and whether
    `render_entry` writes it back as exactly that text, less the blank line after it unless `last`
    (`_as_rendered`). Lines are found with str.find: only a body holding the retired section is split."""
    cut = text.find("\n", first, end)
    head = text[first:end if cut < 0 else cut]
    heading = _HEADING.match(head.rstrip())
    if not heading:
        raise error(first, 0, "malformed entry heading; expected '### [category] title'")
    category = CATEGORIES.get(heading[1])
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
    if not ((fast := CANONICAL_META.fullmatch(meta_line)) and (stated := canonical_meta(fast, values)) is not None):
        fast = None
        if not (meta := _COMMENT.match(meta_line)):
            raise error(first, 0, "entry has no metadata comment; it needs at least a date: <!-- 2026-01-27 -->")
        stated = parse_meta(meta[1].strip(), values, first, error) | ALWAYS_SET
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
        values[key] = one_line(unescape_if_needed(note[2].strip()))
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
        body = "\n".join(unescape_body_line(line) for line in body.split("\n"))
    values["id"] = values["id"] or ""
    values["category"] = category
    values["title"] = one_line(unescape_if_needed(heading[2] or ""))
    values["body"] = body_text(body)
    as_written = AS_WRITTEN in stated
    if as_written:
        stated.discard(AS_WRITTEN)
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
    # lines from one that starts with "### " to the next. Found by pattern or str.find one entry at a
    # time, so the whole file is never held a second time as a list of lines.
    stop = len(text) - 1 if text.endswith("\n") else len(text)
    first = 0 if text.startswith("### ", 0, stop) else text.find("\n### ", 0, stop) + 1 or -1
    preamble = text[:stop] if first < 0 else text[:max(first - 1, 0)] if first else ""
    name, agent = _parse_preamble(preamble.split("\n") if first else [], error)
    learnings = ParsedRules()
    learnings.source = text

    def other(first: int, end: int, last: bool) -> tuple[Learning, bool]:
        rule, as_rendered = _parse_entry(text, first, end, error_at, last)
        if as_rendered:  # then it states what render writes, the fields off their defaults
            set_fields_slot(rule, STATED_AS_WRITTEN)
        return rule, as_rendered

    if first >= 0:
        read_entries(text, first, stop, include_retired, learnings, other)
    taken = set(map(_ID, learnings))
    if len(taken) == len(learnings) and "" not in taken:
        return _doc(name, agent, learnings)  # every entry has an id of its own (the file as render writes it)
    taken.discard("")
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
    return _doc(name, agent, learnings)


def _doc(name: str, agent: str | None, learnings: ParsedRules) -> StoreDoc:
    return StoreDoc.model_construct(name=one_line(name), agent=None if agent is None else one_line(agent),
                                    learnings=learnings)
