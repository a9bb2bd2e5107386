"""The metadata comment of an entry, read and written: `<!-- id:a1b2c3d4 | confidence:0.92 | injected:3 |
src:auto | ... | 2026-01-27 -->`. The reader, the writer and the in-place counter (`bump`) share it.

A line exactly as `meta_line` writes it is read in one regex call (`CANONICAL_META`, `canonical_meta`);
any other goes through the token loop (`parse_meta`), which names what is wrong. Both give the same values,
field by field what `Learning`'s validation would make (types from the readers below, and the model's own
normaliser `one_line`).
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable

from agentuse.core.learning import Category, Channel, LazyFields, Source, State, one_line
from agentuse.core.store_escape import SEPARATOR, escape_value, unescape_value

# Upstream once wrote ISO timestamps; they are read as their calendar day.
DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$")


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
CATEGORIES = {category.value: category for category in Category}
ALWAYS_SET = frozenset({"id", "category", "title", "body", "extra", "date"})  # what every entry states
AS_WRITTEN = ""  # not a field: marks, in canonical_meta's answer, a line render writes as it is
_STATED_UNLESS_NONE = ("confidence", "ch", "ih", "sess", "tool", "sig", "vet", "why", "evidence")


def _stated_as_written(values: dict) -> set[str]:
    # Render writes a token for every field off its default (injected and src always), and nothing else.
    stated = {"id", "category", "title", "body", "extra", "date", "injected", "src"}
    stated.update(key for key in _STATED_UNLESS_NONE if values[key] is not None)
    stated.update(key for key in ("re", "ok") if values[key])
    if values["state"] is not State.active:
        stated.add("state")
    return stated


# The fields set of a record read from an entry exactly as render writes it: what that entry states.
STATED_AS_WRITTEN = LazyFields(_stated_as_written)


# A value the token loop keeps exactly as it is, one_line included: no "|" or backslash, single spaces only
# between words, none at either end.
_V = r"[^|\\\s]++(?: [^|\\\s]++)*+"
# The metadata line as render() writes it: known tokens in its order, each at most once, " | " between, no
# escapes, no unknown tokens. A line that matches means exactly what the token loop would make of it (each
# token is "key:value" with a key the loop knows, or the one date), so it is read from the groups in one
# regex call; anything else (other order, applied:, escapes, extra tokens, odd spacing, errors) goes
# through the token loop.
CANONICAL_META = re.compile(
    rf"<!-- (?:id:({_V}) \| )?(?:confidence:([0-9]++(?:\.[0-9]++)?+) \| )?"
    r"injected:([0-9]++) \| src:(auto|approval|manual)(?: \| ch:(corrections|tool-errors|custom|agent))?"
    rf"(?: \| ih:({_V}))?(?: \| sess:({_V}))?(?: \| tool:({_V}))?(?: \| sig:({_V}))?"
    r"(?: \| re:([0-9]++))?(?: \| ok:([0-9]++))?(?: \| state:(active|graduated|quarantined|retired))?"
    rf"(?: \| vet:({_V}))? \| ([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}) -->")
SOURCES = {member.value: member for member in Source}  # token text -> member, for the readers
CHANNELS = {member.value: member for member in Channel}
STATES = {member.value: member for member in State}
_REAL_DATES: dict[str, str] = {}  # date text -> itself once checked real (so entries share one string)
KNOWN_DATES = _REAL_DATES  # for readers that look dates up themselves (store_canonical)
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


def real_date(text: str) -> str | None:
    """`text` (a YYYY-MM-DD the pattern matched) when it is a real day, as the one string entries share."""
    known = _REAL_DATES.get(text)
    if known is None:
        try:
            datetime.date.fromisoformat(text)
        except ValueError:
            return None
        if len(_REAL_DATES) < _SHARED_KEPT:
            _REAL_DATES[text] = text
        known = text
    return known


def canonical_meta(meta: re.Match, values: dict) -> set[str] | None:
    """Fill `values` from a CANONICAL_META match; the fields stated, with those every entry states (and
    `AS_WRITTEN` when render would write this very line); None when its date is not real (the loop says so)."""
    rule_id, confidence, injected, src, ch, ih, sess, tool, sig, re_, ok, state, vet, date = meta.groups()
    known = real_date(date)
    if known is None:
        return None
    values["date"] = known
    values["injected"] = int(injected)
    values["src"] = SOURCES[src]
    values["extra"] = []
    stated = {"injected", "src", "id", "category", "title", "body", "extra", "date"}  # with ALWAYS_SET
    # What render writes differently from what this pattern accepts: a default (state:active, re:0, ok:0),
    # a number's form (leading zeros, confidence other than two decimals), an escape ("--" in a value: the
    # line has "--" only in "<!--" and "-->" otherwise).
    if not (state == "active" or (injected[0] == "0" and injected != "0") or (re_ is not None and re_[0] == "0")
            or (ok is not None and ok[0] == "0") or meta.string.count("--", *meta.span()) != 2):
        stated.add(AS_WRITTEN)
    if rule_id is not None:
        values["id"] = rule_id
        stated.add("id")
    if confidence is not None:
        values["confidence"] = number = _shared(confidence, float, _CONFIDENCES)
        stated.add("confidence")
        if f"{number:.2f}" != confidence:
            stated.discard(AS_WRITTEN)
    if ch is not None:
        values["ch"] = CHANNELS[ch]
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
        values["state"] = STATES[state]
        stated.add("state")
    if vet is not None:
        values["vet"] = _shared(vet)
        stated.add("vet")
    return stated


def parse_meta(content: str, values: dict, entry: int, error) -> set[str]:
    """Fill `values` from the metadata comment (on the line after the heading at offset `entry`);
    return the field names it stated."""
    stated: set[str] = set()
    extra: list[str] = []
    date_seen = False
    applied = None
    escaped = "\\" in content
    for raw in (SEPARATOR.split(content) if escaped else content.split("|")):
        token = raw.strip()
        if escaped and "\\" in token:
            token = unescape_value(token)
        if not token:
            continue
        if token[0].isdigit() and (date := DATE.match(token)):  # \d needs a digit first
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


def meta_line(d: dict) -> str:
    # Order follows the spec's examples: id, confidence, injected, src, ch, ih, then the optional tokens
    # (vet: last of them), unknown tokens kept from the file, and the date last. Defaults are omitted except
    # injected and src, which the spec's examples always show.
    tokens = [f"id:{escape_value(d['id'])}"] if d["id"] else []
    if (confidence := d["confidence"]) is not None:
        tokens.append(f"confidence:{confidence:.2f}")
    tokens.append(f"injected:{d['injected']}")
    tokens.append(f"src:{d['src'].value}")
    if (ch := d["ch"]) is not None:
        tokens.append(f"ch:{ch.value}")
    for key in ("ih", "sess", "tool", "sig"):
        if (value := d[key]) is not None:
            tokens.append(f"{key}:{escape_value(value)}")
    if d["re"]:
        tokens.append(f"re:{d['re']}")
    if d["ok"]:
        tokens.append(f"ok:{d['ok']}")
    if (state := d["state"]) is not State.active:
        tokens.append(f"state:{state.value}")
    if (vet := d["vet"]) is not None:
        tokens.append(f"vet:{escape_value(vet)}")
    if extra := d["extra"]:
        tokens += [escape_value(token) for token in extra]
    tokens.append(d["date"])
    return f"<!-- {' | '.join(tokens)} -->"
