"""Text on its way to a terminal: control characters are shown, never obeyed.

A path, a rule or a model's output may hold an ESC (recolour, retitle, hide the line), a CR (overwrite it)
or a BEL. Every terminal printout goes through `printable`, which keeps newlines and tabs (multi-line rules
are printed as lines) and shows every other C0 and C1 control character as a visible escape.
"""

from __future__ import annotations

from pathlib import Path

import re

_CONTROL = re.compile(r"\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _show(match: re.Match) -> str:
    char = match.group(0)
    if char == "\r\n":
        return "\n"  # a Windows line end is a line end, not a carriage return
    code = ord(char)
    # C0 as \x1b; DEL and C1 as \u009b, which is also a valid escape inside a JSON string, so printed JSON
    # (C0 is already escaped by json.dumps) stays JSON.
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def printable(text: str) -> str:
    return _CONTROL.sub(_show, text)


def display_path(path: str | Path) -> str:
    """Paths under the home directory print with `~`, as the spec's examples do."""
    text, home = str(path), str(Path.home())
    return "~" + text[len(home):] if text == home or text.startswith(home + "/") else text
