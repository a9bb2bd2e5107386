"""Escaping rule text in a learnings file, so that text is data and never passes for structure.

Each escape adds one backslash (markdown renders `\\!`, `\\>` and `\\#` as the bare character, so the file
still reads naturally), and a run that already holds backslashes just gains one more, which makes every
escape exactly reversible:
- `<!--` and `-->` anywhere in text become `<\\!--` and `--\\>`: text cannot open or close a comment,
  so it cannot forge a metadata line or a learned-block marker;
- a body line starting with `#` (after indentation) becomes `\\#...`: text cannot start an entry or heading;
- inside the metadata comment `|` becomes `\\|`: a value cannot split into two tokens.

Every pattern needs a backslash to undo, and a "--", "|" or "#" to escape, so callers skip them on text
without one (the common case).
"""

from __future__ import annotations

import re

_OPEN, _OPEN_ESC = re.compile(r"<(\\*)!--"), re.compile(r"<\\(\\*)!--")
_CLOSE, _CLOSE_ESC = re.compile(r"--(\\*)>"), re.compile(r"--\\(\\*)>")
_HASH, _HASH_ESC = re.compile(r"^([ \t]*)(\\*)#"), re.compile(r"^([ \t]*)\\(\\*)#")
_PIPE, _PIPE_ESC = re.compile(r"(\\*)\|"), re.compile(r"\\(\\*)\|")
SEPARATOR = re.compile(r"(?<!\\)\|")  # between metadata tokens: an escaped pipe always has a backslash in front


def escape_inline(text: str) -> str:
    """Escape comment delimiters in one line of rule text (titles, why/evidence, values)."""
    text = _OPEN.sub(lambda m: "<\\" + m[1] + "!--", text)
    return _CLOSE.sub(lambda m: "--\\" + m[1] + ">", text)


def unescape_inline(text: str) -> str:
    text = _CLOSE_ESC.sub(lambda m: "--" + m[1] + ">", text)
    return _OPEN_ESC.sub(lambda m: "<" + m[1] + "!--", text)


def unescape_if_needed(text: str) -> str:
    return unescape_inline(text) if "\\" in text else text


def escape_body_line(line: str) -> str:
    return _HASH.sub(lambda m: m[1] + "\\" + m[2] + "#", escape_inline(line))


def unescape_body_line(line: str) -> str:
    return unescape_inline(_HASH_ESC.sub(lambda m: m[1] + m[2] + "#", line))


def escape_value(text: str) -> str:
    """A metadata token's value; text without "|" or "--" is written as it is."""
    return _PIPE.sub(lambda m: "\\" + m[1] + "|", escape_inline(text)) if "|" in text or "--" in text else text


def unescape_value(text: str) -> str:
    return unescape_inline(_PIPE_ESC.sub(lambda m: m[1] + "|", text))
