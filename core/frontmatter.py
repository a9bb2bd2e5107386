"""Agent frontmatter in the plain subset of YAML it is almost always written in, read without PyYAML.

Importing PyYAML costs every command that reads an agent file about 7 ms (its reader compiles a large
pattern), more than the rest of reading the file. Frontmatter like the example's is a few `key: value`
lines, nested mappings, flow (`[a, b]`) or block (`- a`) lists of words, end-of-line comments. `read`
takes exactly that subset and returns what `yaml.safe_load` returns for it, with the file line of every
key and list item; for anything else (quotes, anchors, block scalars, floats, a value over several lines,
a key set twice, tabs, CRLF, non-ASCII text...) it returns None and the caller asks PyYAML, whose answer
and errors stay the reference. tests/test_frontmatter.py checks both readers agree on what this one reads.

Scalars resolve as PyYAML's YAML 1.1 resolvers do: a word that starts with a letter is a bool (`yes`,
`On`, `FALSE`, ...), null (`null`, `Null`, `NULL`) or a string; digits without a leading zero are an int.
Keys resolve the same way (`on:` is the key True); the line index is by the key as written, as
core/agent_file.py's index of PyYAML's nodes is.
"""

from __future__ import annotations

import re
from typing import Any

# PyYAML's implicit resolvers for plain scalars that start with a letter: nothing else can resolve to a
# non-string there (its int, float, timestamp, merge and value resolvers start with a digit, a sign, a
# dot, "<" or "=").
_BOOLS = {**dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
          **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False)}
_NULLS = frozenset({"null", "Null", "NULL", "~"})
# A plain scalar of the subset: a letter, then letters, digits, spaces and punctuation that mean nothing
# inside a block plain scalar; a colon only inside a word ("anthropic:claude-sonnet-5"), never before a
# space or at the end (a mapping indicator there).
_WORD = r"[A-Za-z][A-Za-z0-9_./@+()-]*(?::[A-Za-z0-9_./@+()-]+)*"
_PLAIN = re.compile(rf"{_WORD}(?: +[A-Za-z0-9_./@+(),-]+(?::[A-Za-z0-9_./@+(),-]+)*)*")
_FLOW_ITEM = re.compile(r"[A-Za-z][A-Za-z0-9_./@+-]*|0|[1-9][0-9]*")
_INT = re.compile(r"0|[1-9][0-9]*")
_KEY = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
_ITEM = re.compile(r"( *)- +(.*)")
_COMMENT = re.compile(r"(?:^| +)#.*")


class _Unread(Exception):
    """Outside the subset: PyYAML reads it."""


def read(text: str) -> tuple[dict, dict[tuple, int]] | None:
    """(mapping, file line of every key path and list item) as `yaml.safe_load` would give the mapping,
    or None when the text is outside the subset (PyYAML must read it). Lines count from the line after
    the opening `---` as 2."""
    if "\t" in text or "\r" in text or not text.isascii() or "'" in text or '"' in text:
        return None
    try:
        return _read(text)
    except _Unread:
        return None


def _read(text: str) -> tuple[dict, dict[tuple, int]]:
    rows = [(number + 2, row) for number, row in enumerate(_content(line) for line in text.split("\n"))
            if row is not None]
    root: dict = {}
    lines: dict[tuple, int] = {}
    if rows:
        end = _mapping(rows, 0, rows[0][1][0], root, (), lines)
        if end != len(rows):
            raise _Unread
    return root, lines


def _content(line: str) -> tuple[int, str] | None:
    """(indent, text without its comment), or None for a blank or comment-only line."""
    text = _COMMENT.sub("", line, count=1).rstrip(" ")
    if not text.strip(" "):
        return None
    body = text.lstrip(" ")
    return len(text) - len(body), text


def _mapping(rows: list, at: int, indent: int, into: dict, path: tuple, lines: dict) -> int:
    """Read the keys at `indent` from row `at` into `into`; the index of the first row after them."""
    while at < len(rows):
        number, (row_indent, text) = rows[at]
        if row_indent < indent:
            return at
        found = _KEY.fullmatch(text)
        if row_indent > indent or found is None:
            raise _Unread
        written, value = found.group(2), found.group(3)
        key = _resolve(written)
        child = (*path, written)
        if key in into or child in lines:
            raise _Unread  # set twice: PyYAML's reader reports it
        lines[child] = number
        at += 1
        if value is not None:
            into[key] = _value(value, child, number, lines)
            if at < len(rows) and rows[at][1][0] > indent:
                raise _Unread  # a value continued on the next lines
            continue
        following = rows[at][1] if at < len(rows) else None
        if following is not None and following[0] >= indent and _ITEM.fullmatch(following[1]):
            into[key], at = _sequence(rows, at, following[0], child, lines)
        elif following is not None and following[0] > indent:
            into[key] = {}
            at = _mapping(rows, at, following[0], into[key], child, lines)
        else:
            into[key] = None
    return at


def _sequence(rows: list, at: int, indent: int, path: tuple, lines: dict) -> tuple[list, int]:
    items: list = []
    while at < len(rows):
        number, (row_indent, text) = rows[at]
        if row_indent < indent:
            break
        found = _ITEM.fullmatch(text)
        if row_indent > indent or found is None:
            if row_indent == indent:
                break  # the next key of the mapping that holds the list at the same indent
            raise _Unread
        lines[(*path, len(items))] = number
        items.append(_scalar(found.group(2)))
        at += 1
    return items, at


def _value(text: str, path: tuple, number: int, lines: dict) -> Any:
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip(" ")
        words = [word.strip(" ") for word in inner.split(",")] if inner else []
        if not all(_FLOW_ITEM.fullmatch(word) for word in words):
            raise _Unread
        for index in range(len(words)):
            lines[(*path, index)] = number
        return [_resolve(word) if not _INT.fullmatch(word) else int(word) for word in words]
    return _scalar(text)


def _scalar(text: str) -> Any:
    if _INT.fullmatch(text):
        return int(text)
    if not _PLAIN.fullmatch(text):
        raise _Unread
    return _resolve(text)


def _resolve(word: str) -> Any:
    if word in _BOOLS:
        return _BOOLS[word]
    return None if word in _NULLS else word
