"""Text on its way to a terminal: control characters are shown, never obeyed.

A path, a rule or a model's output may hold an ESC (recolour, retitle, hide the line), a CR (overwrite it)
or a BEL. Every terminal printout goes through `printable`, which keeps newlines and tabs (multi-line rules
are printed as lines) and shows every other C0 and C1 control character as a visible escape.

A model's answer is untrusted input, and no rule needs a control character: `plain` removes them (whole
escape sequences, so no `[31m` is left behind, and the bidirectional overrides of "trojan source" text) before the answer is validated, so none reaches a store, an
agent file or a prompt. So are the characters no screen shows (zero-width ones, and the tag characters that
spell ASCII a model reads and a person cannot see), and every line break is a newline: the store and the
gate read lines at "\n", a run's prompt at every break str.splitlines knows (U+2028 among them). A person's
own text is theirs, and is only ever shown with `printable`.
"""

from __future__ import annotations

from functools import cache
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


@cache  # compiled when a model's answer first needs them: every command imports this module
def _plain_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    # An escape sequence as terminals read it: CSI (ESC [ or C1 0x9b) parameters and a final byte; OSC, DCS
    # and the other string sequences up to BEL or ST (or the line's end: an unterminated one takes no more
    # text); or ESC and one more byte.
    sequence = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
                          r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
                          r"|\x1b[ -~]?")
    line_end = re.compile(r"\r\n?|[\u2028\u2029]")
    # C0 and C1 controls but newline and tab; the bidirectional marks, embeddings, overrides and isolates
    # (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069), which make text read one way on screen and
    # another to a model; and what no screen shows: zero-width space, word joiner and the invisible
    # operators, the byte-order mark, the Mongolian vowel separator, interlinear annotation, and the tag
    # characters (U+E0000-U+E007F). ZWJ and ZWNJ stay: emoji and several scripts are spelled with them.
    other_control = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e"
                               r"\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]")
    return sequence, line_end, other_control


# A lone surrogate: half a JSON escape pair ("\\ud83d" alone), or a byte that is not UTF-8 handed back by the
# file system. No UTF-8 file, log or request can hold one.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def plain(text: str) -> str:
    """`text` with its escape sequences, control and invisible characters removed and each lone surrogate
    as U+FFFD; newlines and tabs stay, and a CR, U+2028 or U+2029 is a line end."""
    if text.isprintable():  # the common case: nothing to remove (newline, tab and format characters are not)
        return text
    sequence, line_end, other_control = _plain_patterns()
    return LONE_SURROGATE.sub("\ufffd", other_control.sub("", line_end.sub("\n", sequence.sub("", text))))


# How deep a model's answer may nest. The deepest honest answer nests four levels (a plan's moves and their
# ids); the JSON parser reads far deeper than a walk of it can recurse, and a RecursionError is no answer.
ANSWER_DEPTH = 64


def plain_values(value, _depth: int = 0):
    """Every string of a decoded JSON value (a model's answer) made `plain`, keys included. ValueError when
    it nests deeper than ANSWER_DEPTH: an invalid answer, as one that does not validate."""
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, (list, dict)) and _depth >= ANSWER_DEPTH:
        raise ValueError(f"the answer is nested deeper than {ANSWER_DEPTH} levels")
    if isinstance(value, list):
        return [plain_values(item, _depth + 1) for item in value]
    if isinstance(value, dict):
        return {plain_values(key): plain_values(item, _depth + 1) for key, item in value.items()}
    return value


_ESCAPED_BYTE = 0xDC00  # surrogateescape: a byte b that is not UTF-8 arrives as U+DC00 + b


def not_utf8(text: str | None) -> str | None:
    """Why a person's text from the command line cannot be stored or logged (a byte that is not UTF-8, which
    Python hands over as a lone surrogate), or None. Refused rather than changed: it may be a note to keep."""
    where = first_non_utf8(text)
    return f"is not UTF-8 text ({where}): give it as UTF-8 (iconv -f latin1 -t utf-8, say)" if where else None


def first_non_utf8(text: str | None) -> str | None:
    """Where the first byte that is not UTF-8 is in `text` ("byte 0xe9 at character 12"), or None."""
    if not text or text.isascii():
        return None
    at = next((i for i, char in enumerate(text) if 0xD800 <= ord(char) <= 0xDFFF), None)
    if at is None:
        return None
    code = ord(text[at])
    what = f"byte 0x{code - _ESCAPED_BYTE:02x}" if 0x80 <= code - _ESCAPED_BYTE <= 0xFF else f"U+{code:04X}"
    return f"{what} at character {at + 1}"


def display_path(path: str | Path) -> str:
    """Paths under the home directory print with `~`, as the spec's examples do."""
    from agentuse.core.location import home as home_dir

    folder = home_dir()
    if folder is None:
        return str(path)
    text, home = str(path), str(folder)
    return "~" + text[len(home):] if text == home or text.startswith(home + "/") else text


def shell_word(path: str | Path) -> str:
    """A path as a command line a person is told to run spells it: quoted when a shell would split or
    expand it (a checkout at "ci work/my project"), bare otherwise, as the spec's examples are. A leading
    `~/` (display_path's) stays outside the quotes, where the shell still expands it."""
    import shlex

    text = str(path)
    if text.startswith("~/"):
        return "~/" + shlex.quote(text[2:])
    return shlex.quote(text)
