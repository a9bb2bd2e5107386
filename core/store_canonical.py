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

from agentuse.core.learning import (
    Category,
    Channel,
    Learning,
    Source,
    State,
    new_values,
    set_fields_slot,
    title_said_once,
)
from agentuse.core.store_doc import ParsedRules
from agentuse.core.store_meta import KNOWN_DATES, STATED_AS_WRITTEN, real_date

_WORD = r"[0-9A-Za-z._:-]++"  # ids, hashes, session ids, the vetter (ASCII: a quicker class; others go the long way)
_WORDS = r"[^|\\\s]++(?: [^|\\\s]++)*+"  # single spaces between words (tools, signatures)
_NOTE = r"[^\\\s]++(?: (?!-->(?:\n|\Z))[^\\\s]++)*+"  # up to the line's last " -->"
ENTRY = re.compile(
    # The title's spacing and printability are checked after (cheaper than a class per character here).
    r"### \[([a-z-]++)\](?: ((?! )[^\n\\]++(?<! )))?+\n"
    rf"<!-- (?:id:({_WORD}) \| )?+(?:confidence:([0-9]++\.[0-9][0-9]) \| )?+injected:([0-9]++) \| src:([a-z]++)"
    rf"(?: \| ch:([a-z-]++))?+(?: \| ih:({_WORD}))?+(?: \| sess:({_WORD}))?+(?: \| tool:({_WORDS}))?+"
    rf"(?: \| sig:({_WORDS}))?+(?: \| re:([0-9]++))?+(?: \| ok:([0-9]++))?+(?: \| state:([a-z]++))?+"
    rf"(?: \| vet:({_WORD}))?+ \| ([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}) -->"
    rf"(?:\n<!-- why: ({_NOTE}) -->)?+(?:\n<!-- evidence: ({_NOTE}) -->)?+"
    r"(?:\n(?!<!--|#)([^\n]++(?:\n(?!#)[^\n]++)*+)(?<!\s))?+"
    r"(?:\n\n(?=### )|\n?\Z)")

_CATEGORIES = {member.value: member for member in Category}
_SOURCES = {member.value: member for member in Source}
_CHANNELS = {member.value: member for member in Channel}
_STATES = {member.value: member for member in State if member is not State.active}  # render omits active
_COUNTS = {str(number): number for number in range(1000)}  # counts as render writes them
_POSITIVE = {text: number for text, number in _COUNTS.items() if number}  # re: and ok: (render omits 0)
# Confidence text -> its number, for the texts that read back as written (two decimals); 0.00-1.00 at
# first, others as they are met. Dates likewise (store_meta.real_date), both bounded.
_CONFIDENCES = {f"{hundredths / 100:.2f}": float(f"{hundredths / 100:.2f}") for hundredths in range(101)}
_KEPT = 10_000


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
    """The table lookups of `read_entries` again for one whose text missed a table (a date or confidence
    first met, a count of 1,000 or more, or text render does not write): whether the entry is render's."""
    for key, text, least in (("injected", injected, 0), ("re", re_, 1), ("ok", ok, 1)):
        if text is not None and (values.__setitem__(key, _count(text, least)) or values[key] is None):
            return False
    if confidence is not None:
        values["confidence"] = _confidence(confidence)
        if values["confidence"] is None:
            return False
    values["date"] = real_date(values["date"])
    return values["date"] is not None


def read_entries(text: str, first: int, stop: int, include_retired: bool, rules: ParsedRules, other) -> None:
    """Append to `rules` the entries from offset `first` (a heading) up to `stop` (the text's end less a
    final newline), each with its span when render writes it back as it is. `other(first, end, last)`
    reads an entry this pattern does not take: (record, whether its text is render's). Written for speed
    (this loop is most of reading a large store): table lookups, and the record made in place."""
    match, spans, bounds, keep = ENTRY.match, rules.spans, rules.bounds, rules.append
    categories, sources, channels, states = _CATEGORIES, _SOURCES, _CHANNELS, _STATES
    counts, positive, confidences, dates = _COUNTS, _POSITIVE, _CONFIDENCES, KNOWN_DATES
    as_written, new, put = STATED_AS_WRITTEN, Learning.__new__, object.__setattr__
    at = first
    while at >= 0:
        entry = match(text, at)
        if entry is not None:
            (category, title, rule_id, confidence, injected, src, ch, ih, sess, tool, sig, re_, ok, state, vet,
             date, why, evidence, body) = entry.groups()
            values = new_values()
            try:
                values["category"] = categories[category]
                values["src"] = sources[src]
                if ch is not None:
                    values["ch"] = channels[ch]
                if state is not None:
                    values["state"] = states[state]
            except KeyError:  # not a name render writes: the full reader says which
                entry = None
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
                    if not _rare(values, confidence, injected, re_, ok):
                        entry = None
            # Spacing and printability of the title (the pattern leaves them), and no escape in the body.
            if (entry is not None and ((title is not None and ("  " in title or not title.isprintable()))
                                       or (body is not None and "\\" in body))):
                entry = None
        if entry is None:
            following = text.find("\n### ", at, stop)
            end = stop if following < 0 else following
            rule, as_rendered = other(at, end, following < 0)
            if include_retired or rule.state is not State.retired:
                keep(rule)
                spans.append(rule if as_rendered else None)
                bounds.extend((at, end - (following >= 0)))
            at = following + 1 if following >= 0 else -1
            continue
        values["id"] = rule_id or ""
        values["ih"], values["sess"], values["tool"], values["sig"], values["vet"] = ih, sess, tool, sig, vet
        values["why"], values["evidence"], values["extra"] = why, evidence, []
        end = entry.end()
        # Render escapes "--" (but for the lines' own "<!--" and "-->") and a body line's "#".
        written = (text.count("--", at, end) == 2 + 2 * ((why is not None) + (evidence is not None))
                   and (body is None or "#" not in body))
        if body is None:
            title, body = title or "", ""
        elif title is not None and not (title[0].isascii() and body[0].isascii() and title[0].isalnum()
                                        and body[0].isalnum() and title[0].lower() != body[0].lower()):
            said = title_said_once(title, body)  # (its own quick no above, inline)
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
            bounds.extend((at, end - 2 if end < len(text) else stop))
        at = end if end < len(text) else -1
