"""Records -> the text of a learnings file (`render`), entry by entry (`render_entry`).

Text is escaped only where it holds a "--", a "|" or a body line's "#" (store_escape); a list `parse`
returned copies each entry whose record still holds the values it was read with (`ParsedRules`).
"""

from __future__ import annotations

import math

from agentuse.core.learning import Learning, fields_set_slot
from agentuse.core.store_doc import ParsedRules, StoreDoc
from agentuse.core.store_escape import escape_body_line, escape_inline
from agentuse.core.store_meta import DATE, STATED_AS_WRITTEN, meta_line


def _writable(d: dict) -> bool:
    # What _check_writable accepts, tested without a regex: exactly ^\d{4}-\d{2}-\d{2}$ (\d is isdecimal).
    date, confidence = d["date"], d["confidence"]
    return (len(date) == 10 and date[4] == "-" and date[7] == "-" and date[:4].isdecimal()
            and date[5:7].isdecimal() and date[8:].isdecimal()
            and (confidence is None or math.isfinite(confidence)) and min(d["injected"], d["re"], d["ok"]) >= 0)


def _check_writable(rule: Learning) -> None:
    # Never write what parse() would refuse: the file would then be stuck until fixed by hand.
    problems = []
    if not DATE.match(rule.date) or len(rule.date) != 10:
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
    lines = [heading, meta_line(d)]
    if (why := d["why"]) is not None:
        lines.append(f"<!-- why: {escape_inline(why) if '--' in why else why} -->")
    if (evidence := d["evidence"]) is not None:
        lines.append(f"<!-- evidence: {escape_inline(evidence) if '--' in evidence else evidence} -->")
    if body := d["body"]:
        lines.append("\n".join(escape_body_line(line) for line in body.split("\n"))
                     if "#" in body or "--" in body else body)
    return "\n".join(lines)


def header(doc: StoreDoc) -> str:
    header = f"# Learnings for {escape_inline(doc.name)}" if doc.name else "# Learnings for"
    return header if doc.agent is None else f"{header}\n<!-- agent: {escape_inline(doc.agent)} -->"


def render(doc: StoreDoc) -> str:
    """The file text for a doc; `parse(render(doc)) == doc` and `render(parse(text)) == text`."""
    rules, head = doc.learnings, header(doc)
    if not isinstance(rules, ParsedRules):
        return "\n\n".join([head, *map(render_entry, rules)]) + "\n"
    source, parts = rules.source, _reused(rules)
    # Every entry as read, up to the final newline (one run that ends there), with render's header and blank line.
    if (len(parts) == 1 and parts[0] == (len(head) + 2, len(source) - 1)
            and source.startswith("\n\n", len(head)) and source.startswith(head)):
        return source
    pieces = [head]
    for part in parts:
        pieces += ("\n\n", part if isinstance(part, str) else source[part[0]:part[1]])
    pieces.append("\n")
    return "".join(pieces)


def _reused(rules: ParsedRules) -> list[str | tuple[int, int]]:
    """Each record's entry: where its text is in the file when the record has not been assigned since it
    was read (consecutive ones as one (start, end), the blank lines between included), rendered otherwise.
    Every validated assignment asks pydantic's fields set of the record, which makes the stand-in parse
    left there a set (`learning.LazyFields`), so the stand-in still there says the values are the ones
    read (an assignment of an equal value is a change too: -0.0 == 0.0 renders "-0.00"). `extra`, a list
    that may have grown in place, must still be empty."""
    source, spans, bounds = rules.source, rules.spans, rules.bounds
    at: dict[int, int] | None = None  # id(record) -> index into spans, built if the list was reordered
    out: list[str | tuple[int, int]] = []
    start = end = -1  # the run of reused entries not yet copied: one slice, the blank lines between included
    for index, rule in enumerate(rules):
        where = index
        if index >= len(spans) or spans[index] is not rule:
            if at is None:  # the spans hold their records, so no id here can be a new object's
                at = {id(span): where for where, span in enumerate(spans) if span is not None}
            where = at.get(id(rule))
        if where is not None and fields_set_slot(rule) is STATED_AS_WRITTEN and not rule.__dict__["extra"]:
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
