"""Reading the entries that are exactly what `render_entry` writes (a store the tool keeps writes nothing
else), one regex call each, and every other entry with the full reader.

`ENTRY` matches an entry only in render's own form: the known metadata tokens in render's order, no
default written out (state:active, re:0, ok:0), numbers without leading zeros, two-decimal confidences,
single spaces, no backslash anywhere (so nothing to unescape), notes why-then-evidence, a body with no
blank line, no trailing space and no line starting with "#" after its first, then render's blank line
(or the end). What such an entry means needs no token loop: its groups are the values, each checked below
as strictly as the loop's readers (a table lookup that misses is an entry for the full reader, which
names the problem, or reads what this pattern does not take). The record's fields set is what render
writes: the fields off their defaults (`STATED_AS_WRITTEN`, made when first asked for).
"""

from __future__ import annotations

import math
import re
import string

from agentuse.core.learning import (
    Learning,
    State,
    new_values,
    set_fields_slot,
    title_said_once,
)
from agentuse.core.store_doc import ParsedRules
from agentuse.core.store_meta import (
    CATEGORIES,
    CHANNELS,
    KNOWN_DATES,
    SOURCES,
    STATED_AS_WRITTEN,
    STATES,
    real_date,
)

# Ids, hashes, session ids, the vetter: ASCII and no "-" (a quicker class; any other goes the long way).
_WORD = r"[0-9A-Za-z._:]++"
_WORDS = r"[^|\\\s]++(?: [^|\\\s]++)*+"  # single spaces between words (tools, signatures)
_NOTE = r"[^\\\s]++(?: (?!-->(?:\n|\Z))[^\\\s]++)*+"  # up to the line's last " -->"
ENTRY = re.compile(
    # The title's spacing, printability and backslashes are checked after (cheaper than a class here).
    r"### \[([a-z-]++)\](?: ((?! )[^\n]++(?<! )))?+\n"
    rf"<!-- (?:id:({_WORD}) \| )?+(?:confidence:([0-9]++\.[0-9][0-9]) \| )?+injected:([0-9]++) \| src:([a-z]++)"
    rf"(?: \| ch:([a-z-]++))?+(?: \| ih:({_WORD}))?+(?: \| sess:({_WORD}))?+(?: \| tool:({_WORDS}))?+"
    rf"(?: \| sig:({_WORDS}))?+(?: \| re:([0-9]++))?+(?: \| ok:([0-9]++))?+(?: \| state:([a-z]++))?+"
    rf"(?: \| vet:({_WORD}))?+ \| ([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}) -->"
    rf"(?:\n<!-- why: ({_NOTE}) -->)?+(?:\n<!-- evidence: ({_NOTE}) -->)?+"
    r"(?:\n(?!<!--|#)([^\n]++(?:\n(?!#)[^\n]++)*+)(?<!\s))?+"
    r"(?:\n\n(?=### )|\n?\Z)"
    # Or any other entry (the last group): every line up to the next heading.
    r"|(### [^\n]*+(?:\n(?!### )[^\n]*+)*+)(?:\n(?=### )|\Z)")

_STATES = {text: member for text, member in STATES.items() if member is not State.active}  # render omits active
_COUNTS = {str(number): number for number in range(1000)}  # counts as render writes them
_POSITIVE = {text: number for text, number in _COUNTS.items() if number}  # re: and ok: (render omits 0)
# Confidence text -> its number, for the texts that read back as written (two decimals); 0.00-1.00 at
# first, others as they are met. Dates likewise (store_meta.real_date), both bounded.
_CONFIDENCES = {f"{hundredths / 100:.2f}": float(f"{hundredths / 100:.2f}") for hundredths in range(101)}
_KEPT = 10_000
# title_said_once's quick no, as a table: two ASCII letters or digits that differ but for case.
_LOWER = {character: character.lower() for character in string.ascii_letters + string.digits}


def _count(text: str, least: int) -> int | None:
    """A count as render writes it (no leading zero), at least `least`; None for any other text."""
    number = _COUNTS.get(text)
    if number is None and text[0] != "0":
        number = int(text)
    return None if number is None or number < least else number


def _confidence(text: str) -> float | None:
    number = _CONFIDENCES.get(text)
    if number is None:
        number = float(text)
        if not (math.isfinite(number) and f"{number:.2f}" == text):
            return None  # e.g. "00.50": the full reader takes it (and render writes it otherwise)
        if len(_CONFIDENCES) < _KEPT:
            _CONFIDENCES[text] = number
    return number


def _rare(values: dict, confidence, injected, re_, ok) -> bool:
    """The table lookups of `read_entries` again for an entry whose text missed a table (a date or
    confidence first met, a count of 1,000 or more, or text render does not write), filling `values`
    (its "date" the date's text): whether the entry is render's."""
    read = {"injected": _count(injected, 0), "date": real_date(values["date"])}
    if re_ is not None:
        read["re"] = _count(re_, 1)
    if ok is not None:
        read["ok"] = _count(ok, 1)
    if confidence is not None:
        read["confidence"] = _confidence(confidence)
    values.update(read)
    return None not in read.values()


def read_entries(text: str, first: int, stop: int, include_retired: bool, rules: ParsedRules, other) -> None:
    """Append to `rules` the entries from offset `first` (a heading) up to `stop` (the text's end less a
    final newline), each with its span when render writes it back as it is. `other(first, end, last)`
    reads an entry this pattern does not take: (record, whether its text is render's). Written for speed
    (this loop is most of reading a large store): table lookups, and the record made in place."""
    spans, bound, keep, size = rules.spans, rules.bounds.append, rules.append, len(text)
    categories, sources, channels, states = CATEGORIES, SOURCES, CHANNELS, _STATES
    counts, positive, confidences, dates, lower = _COUNTS, _POSITIVE, _CONFIDENCES, KNOWN_DATES, _LOWER
    as_written, new, put, defaults = STATED_AS_WRITTEN, Learning.__new__, object.__setattr__, new_values
    for entry in ENTRY.finditer(text, first):  # one match per entry, each where the one before ended
        (category, title, rule_id, confidence, injected, src, ch, ih, sess, tool, sig, re_, ok, state, vet,
         date, why, evidence, body, any_other) = entry.groups()
        at, end = entry.span()
        fast = any_other is None
        if fast:
            values = defaults()
            try:
                values["category"] = categories[category]
                values["src"] = sources[src]
                if ch is not None:
                    values["ch"] = channels[ch]
                if state is not None:
                    values["state"] = states[state]
            except KeyError:  # not a name render writes: the full reader says which
                fast = False
            else:
                try:
                    values["date"] = dates[date]
                    values["injected"] = counts[injected]
                    if confidence is not None:
                        values["confidence"] = confidences[confidence]
                    if re_ is not None:
                        values["re"] = positive[re_]
                    if ok is not None:
                        values["ok"] = positive[ok]
                except KeyError:
                    values["date"] = date
                    fast = _rare(values, confidence, injected, re_, ok)
            # Spacing and printability of the title (the pattern leaves them), and no escape in the body.
            if fast and ((title is not None and ("  " in title or "\\" in title or not title.isprintable()))
                         or (body is not None and "\\" in body)):
                fast = False
        if not fast:
            last = end == size  # else the match ends where the next heading starts
            rule, written = other(at, stop if last else end - 1, last)
            if include_retired or rule.state is not State.retired:
                keep(rule)
                spans.append(rule if written else None)
                bound(at)
                bound(stop if last else end - 2)
            continue
        values["id"] = rule_id or ""
        values["ih"] = ih
        values["sess"] = sess
        values["extra"] = []
        # Render escapes a "--" (the values the pattern takes as words have none) and a body line's "#".
        written = (title is None or "--" not in title) and (body is None or ("--" not in body and "#" not in body))
        if tool is not None or sig is not None or vet is not None or why is not None or evidence is not None:
            values["tool"], values["sig"], values["vet"] = tool, sig, vet
            values["why"], values["evidence"] = why, evidence
            written = written and not any(value is not None and "--" in value for value in (tool, sig, why, evidence))
        if body is None:
            body = ""
        elif title is not None and ((known := lower.get(title[0])) is None or known == lower.get(body[0], known)):
            said = title_said_once(title, body)  # unless its own quick no (above, inline) says it need not
            if said != (title, body):
                (title, body), written = said, False
        values["title"], values["body"] = title or "", body
        rule = new(Learning)  # learning.record, in place
        put(rule, "__dict__", values)
        set_fields_slot(rule, as_written if written else as_written.made_from(values))
        put(rule, "__pydantic_extra__", None)
        put(rule, "__pydantic_private__", None)
        if include_retired or state != "retired":
            keep(rule)
            spans.append(rule if written else None)
            bound(at)
            bound(stop if end == size else end - 2)
