"""The graduated-rules block inside an agent file (spec: What makes a learning permanent).

The block is the source of truth for graduated rules: it is read back before every edit, so wording
changed by hand survives. Editing touches only the bytes between the two marker lines; everything else
in the file — frontmatter, comments, CRLF line endings, a missing final newline — stays byte-identical.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, field_validator

from agentuse.core.agent_errors import BlockMarkerError
from agentuse.core.learning import Category

START = "<!-- agentuse:learned -->"
END = "<!-- /agentuse:learned -->"
HEADING = "## Learned Guidance"
# Verbatim from the spec's example block.
GUIDANCE = (
    "Guidance consolidated from previous runs. Apply each learning only when its situation is relevant. "
    "Preserve its intended scope; do not turn examples or past incidents into universal requirements. "
    "The current task and the agent's authored instructions take precedence. "
    "A clearly relevant learning may refine a soft skill default:"
)
_CONTINUATION = "  "  # the width of "- ", so a continuation stays inside its markdown list item

# A marker counts only alone on its line, so prose that mentions the marker text is not mistaken for one.
_MARKER = re.compile(r"^[ \t]*<!--[ \t]*(/?)agentuse:learned[ \t]*-->[ \t]*\r?$", re.MULTILINE)
_BULLET = re.compile(r"^[-*+][ \t]+(?:\[([^\]\n]*)\][ \t]*)?(.*)$")


class BlockRule(BaseModel):
    category: Category
    text: str

    @field_validator("text")
    @classmethod
    def _normalise(cls, value: str) -> str:
        # One canonical form, so what is written reads back equal: LF newlines, no trailing blanks.
        lines = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        text = "\n".join(line.rstrip() for line in lines).strip()
        if not text:
            raise ValueError("a learned rule needs text")
        return text


# --- escaping: rule text is data and must never open or close an HTML comment -----------------------
# `<` before `!--` becomes `&lt;`, `>` after `--` becomes `&gt;`. To stay reversible, text that already
# reads like an escape gets one more `amp;` (`&lt;!--` -> `&amp;lt;!--`); unescaping removes exactly one.
_ESCAPE = re.compile(r"&((?:amp;)*)lt;(?=!--)|(?<=--)&((?:amp;)*)gt;|<(?=!--)|(?<=--)>")


def escape(text: str) -> str:
    def swap(match: re.Match) -> str:
        token = match.group(0)
        if token == "<":
            return "&lt;"
        if token == ">":
            return "&gt;"
        return "&amp;" + token[1:]

    return _ESCAPE.sub(swap, text)


_UNESCAPE = re.compile(r"&((?:amp;)*)lt;(?=!--)|(?<=--)&((?:amp;)*)gt;")


def unescape(text: str) -> str:
    def swap(match: re.Match) -> str:
        token = match.group(0)
        if token == "&lt;":
            return "<"
        if token == "&gt;":
            return ">"
        return "&" + token[len("&amp;"):]

    return _UNESCAPE.sub(swap, text)


# --- finding the block ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    start_line: int  # offset where the start marker's line begins
    inner: int  # offset just after the start marker text: the first byte that editing may change
    end_line: int  # offset where the end marker's line begins: the first byte after the editable range
    after: int  # offset just past the end marker's line (its newline included)
    first_line: int  # 1-based line number of the start marker
    crlf: bool  # the start marker's line ends in CRLF: the rewritten lines follow suit


def find_block(text: str, *, filename: str = "<agent file>", frontmatter: bool = True) -> Span | None:
    """The block's position, None when there is none. Unbalanced markers raise: guessing where the user
    meant the block to end could overwrite their own instructions. `frontmatter=False` for a body alone."""
    markers = _markup_markers(text, frontmatter=frontmatter, filename=filename).markers
    if not markers:
        return None

    def fail(marker: re.Match, why: str) -> BlockMarkerError:
        return BlockMarkerError(
            filename, f"learned block markers are unbalanced: {why}. Fix the markers by hand "
                      f"({START} ... {END}); agentuse will not edit the block until they balance",
            line=text.count("\n", 0, marker.start()) + 1)

    first = markers[0]
    if first.group(1):
        raise fail(first, "an end marker comes before any start marker")
    if len(markers) == 1:
        raise fail(first, "this start marker is never closed")
    second = markers[1]
    if not second.group(1):
        raise fail(second, "a second start marker appears before the first block is closed")
    if len(markers) > 2:
        third = markers[2]
        raise fail(third, "a second end marker closes nothing" if third.group(1) else
                   "a second learned block starts here; keep one block")
    after = second.end()
    if text.startswith("\r\n", after):
        after += 2
    elif text.startswith("\n", after):
        after += 1
    start_text = first.group(0).rstrip("\r").rstrip(" \t")
    return Span(start_line=first.start(), inner=first.start() + len(start_text), end_line=second.start(),
                after=after, first_line=text.count("\n", 0, first.start()) + 1,
                crlf=first.group(0).endswith("\r"))


# A fence per CommonMark: 3+ backticks or tildes, indented at most 3 spaces; a backtick fence's info string
# holds no backtick. It closes with the same character, at least as many, and nothing but blanks after.
_FENCE_OPEN = re.compile(r"^ {0,3}(?:(`{3,})[^`]*|(~{3,}).*)$")
_FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")


@dataclass(frozen=True)
class _Markup:
    markers: list[re.Match]
    open_fence: int | None  # 1-based line of a code fence still open at the end of the text


def _markup_markers(text: str, *, frontmatter: bool, filename: str) -> _Markup:
    """The marker lines that are markup: not inside the YAML frontmatter (a multi-line string may hold
    one) and not inside fenced code (a documentation example may show one). Inside an open block fences
    are not tracked: the block is agentuse's, and an odd fence in a rule must not swallow its end marker."""
    from agentuse.core.agent_file import split_frontmatter  # frontmatter parsing lives there

    begin = 0
    if frontmatter:
        yaml_text, body = split_frontmatter(text, filename=filename)
        begin = 0 if yaml_text is None else len(text) - len(body)
    markers: list[re.Match] = []
    fence: tuple[str, int, int] | None = None  # (character, length, line) of the open fence
    in_block = False
    line_number = text.count("\n", 0, begin)
    for line in _LINE.finditer(text, begin):
        if line.start() == len(text) and line.start() > begin:
            break  # the empty match after a final newline is not a line
        line_number += 1
        content = line.group(0).rstrip("\r\n")
        if fence is not None:
            close = _FENCE_CLOSE.match(content)
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= fence[1]:
                fence = None
            continue
        marker = _MARKER.match(text, line.start(), line.start() + len(line.group(0).rstrip("\n")))
        if marker:
            markers.append(marker)
            in_block = not marker.group(1)
            continue
        if not in_block and (opening := _FENCE_OPEN.match(content)):
            run = opening.group(1) or opening.group(2)
            fence = (run[0], len(run), line_number)
    return _Markup(markers=markers, open_fence=fence[2] if fence else None)


_LINE = re.compile(r"[^\n]*\n?")


# --- reading ---------------------------------------------------------------------------------------------


def read_block(text: str, *, filename: str = "<agent file>", frontmatter: bool = True) -> list[BlockRule] | None:
    """The rules in the block, in order; None when the file has no block. Lines before the first bullet
    are the heading and guidance paragraph (machine text, rewritten on edit); after it, indented lines
    continue the rule above, as in markdown."""
    span = find_block(text, filename=filename, frontmatter=frontmatter)
    if span is None:
        return None
    rules: list[BlockRule] = []
    current: _Pending | None = None
    blanks = 0
    # Inner line 0 is the rest of the start marker's own line, so inner line i is file line first_line + i.
    for number, raw in enumerate(text[span.inner:span.end_line].split("\n"), start=span.first_line):
        line = raw.rstrip("\r")
        bullet = _BULLET.match(line)
        if bullet:
            if current:
                rules.append(current.rule(filename))
            current, blanks = _Pending(_category(bullet.group(1), filename, number), [bullet.group(2)], number), 0
        elif not line.strip():
            blanks += 1 if current else 0
        elif current is None:
            continue  # heading and guidance paragraph
        elif line[0] in " \t" or not blanks:
            # Indented continuation, or a lazy one (unindented, directly under the rule: markdown agrees).
            current.lines += [""] * blanks
            current.lines.append(line[len(_CONTINUATION):] if line.startswith(_CONTINUATION) else line.lstrip())
            blanks = 0
        else:
            raise BlockMarkerError(
                filename, "this line inside the learned block is not part of a rule: indent it to continue "
                          "the rule above or make it a bullet (- [category] text)", line=number)
    if current:
        rules.append(current.rule(filename))
    return rules


@dataclass
class _Pending:
    category: Category
    lines: list[str]
    line: int

    def rule(self, filename: str) -> BlockRule:
        try:
            return BlockRule(category=self.category, text=unescape("\n".join(self.lines)))
        except ValueError:
            raise BlockMarkerError(filename, "this bullet in the learned block has no text",
                                   line=self.line) from None


def _category(label: str | None, filename: str, line: int) -> Category:
    if label is None:
        return Category.tip  # a hand-written "- text" bullet is still a rule; tip is the general category
    try:
        return Category(label.strip())
    except ValueError:
        allowed = ", ".join(c.value for c in Category)
        raise BlockMarkerError(filename, f'unknown category "[{label}]" in the learned block; use one of: '
                                         f"{allowed}", line=line) from None


# --- writing ---------------------------------------------------------------------------------------------


def render_rules(rules: list[BlockRule], newline: str = "\n") -> str:
    """Heading, guidance paragraph and bullets: the block's content, without the markers."""
    lines = [HEADING, "", GUIDANCE, ""]
    for rule in rules:
        first, *rest = escape(rule.text).split("\n")
        lines.append(f"- [{rule.category.value}] {first}")
        lines += [f"{_CONTINUATION}{line}" if line else "" for line in rest]
    return newline.join(lines)


def write_block(text: str, rules: list[BlockRule], *, filename: str = "<agent file>",
                frontmatter: bool = True) -> str:
    """Return `text` with the block holding exactly `rules`: replaced in place when present (only the bytes
    between the markers change), appended after a blank line when absent, removed when `rules` is empty.
    A block whose content does not read as a rule list is refused like unbalanced markers: replacing it
    would throw away whatever the user wrote there. So is appending after a code fence that never closes:
    the block would land inside the code."""
    span = find_block(text, filename=filename, frontmatter=frontmatter)
    if span is not None:
        read_block(text, filename=filename, frontmatter=frontmatter)  # raises BlockMarkerError before any edit
        newline = "\r\n" if span.crlf else "\n"
        if rules:
            return text[:span.inner] + newline + render_rules(rules, newline) + newline + text[span.end_line:]
        return _remove(text, span)
    if not rules:
        return text
    open_fence = _markup_markers(text, frontmatter=frontmatter, filename=filename).open_fence
    if open_fence is not None:
        raise BlockMarkerError(filename, "this code fence is never closed, so a learned block appended at the end "
                                         "would be inside the code: close the fence, then run the command again",
                               line=open_fence)
    newline = "\r\n" if "\r\n" in text else "\n"
    block = START + newline + render_rules(rules, newline) + newline + END + newline
    if not text:
        return block
    if not text.endswith("\n"):
        text += newline
    if not text.endswith("\n" + newline):
        text += newline  # the blank line that separates the block from the instructions
    return text + block


def _remove(text: str, span: Span) -> str:
    before, after = text[:span.start_line], text[span.after:]
    # Also drop the blank line that separated the block, so append-then-remove restores the file.
    if before.endswith(("\n\n", "\n\r\n")) and (not after or after.startswith(("\n", "\r\n"))):
        if after:
            after = after[2:] if after.startswith("\r\n") else after[1:]
        else:
            before = before[:-2] if before.endswith("\r\n") else before[:-1]
    return before + after
