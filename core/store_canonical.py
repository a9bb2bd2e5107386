"""Reading the entries that are exactly what `render_entry` writes (a store the tool keeps writes nothing
else), one regex call each, and every other entry with the full reader.

`ENTRY` matches an entry only in render's own form: the known metadata tokens in render's order, no
default written out (state:active, re:0, ok:0), numbers without leading zeros, two-decimal confidences,
single spaces, no backslash anywhere (so nothing to unescape), notes why-then-evidence, a title and a body
(an entry without one is the full reader's), the body with no blank line, no trailing space and no line
starting with "#" (after indentation), then render's blank line (or the end). What such an entry means
needs no token loop: its groups are the values, each checked below as strictly as the loop's readers (a
table lookup that misses is an entry for the full reader, which names the problem, or reads what this
pattern does not take). The record's fields set is what render writes: the fields off their defaults
(`STATED_AS_WRITTEN`, made when first asked for).

Written for speed, since this loop is most of reading a large store (benchmarks/store_scale.py), and
each shortcut tested against the full reader and 4c0d947's (tests/test_store_canonical.py):
- the category, source and channel are spelled out in the pattern, which captures the one character that
  tells each apart (`_told_apart`): a one-character string Python keeps one copy of. Together they pick the
  entry's starting values, the defaults with those three set (`_STARTS`), which the entry's dict copies;
- the tokens after `sess:` (`tool: sig: re: ok: state: vet:`, in most entries none or a counter or two) are
  one stretch, taken loosely by the pattern (the keys it may hold, values without "|", backslash or a space
  run) and read once per distinct text by `_later_part`, to the exact grammar spelled out in `_LATER_PART`;
- title_said_once's own quick no (first characters that differ) is told by the pattern (`_OPENS_OTHERWISE`);
- whether render writes the entry back as it is: with no backslash in it, unless a text holds a comment
  delimiter, looked for only where a "<" or ">" is;
- the records are made a run of entries at a time (`learning.records`).
An entry is read here exactly when a pattern spelling every token out would have taken it, with the same
values, and otherwise by the full reader, which names what is wrong.
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
    records,
    title_said_once,
)
from agentuse.core.store_doc import ParsedRules
from agentuse.core.store_meta import KNOWN_DATES, STATED_AS_WRITTEN, STATES, real_date


def _told_apart(kind) -> tuple[str, dict[str, object]]:
    """A pattern matching exactly the values of the enum `kind` and capturing one character that tells
    them apart (the first position where all differ, else the last character), with that character -> member."""
    values = [member.value for member in kind]
    spelled = "(?:" + "|".join(map(re.escape, values)) + ")"
    for index in range(min(map(len, values))):
        if len({value[index] for value in values}) == len(values):
            return rf"(?=.{{{index}}}(.)){spelled}", {member.value[index]: member for member in kind}
    if len({value[-1] for value in values}) == len(values):
        return rf"{spelled}(?<=(.))", {member.value[-1]: member for member in kind}
    raise ValueError(f"no one character tells the {kind.__name__} values apart")


_CATEGORY, _CATEGORIES = _told_apart(Category)
_SOURCE, _SOURCES = _told_apart(Source)
_CHANNEL, _CHANNELS = _told_apart(Channel)
_CHANNELS[None] = None  # no ch: token


def _started(category, src, ch) -> dict:
    values = new_values()
    values["category"], values["src"], values["ch"] = category, src, ch
    return values


# Category character -> source character -> channel character (or None) -> the defaults with those three
# set: copied per entry (a copy shares its keys, as new_values' does), so they need no store of their own.
_STARTS = {told: {said: {heard: _started(category, src, ch) for heard, ch in _CHANNELS.items()}
                  for said, src in _SOURCES.items()} for told, category in _CATEGORIES.items()}

# Ids, hashes, session ids, the vetter: ASCII and no "-" (a quicker class; any other goes the long way).
_WORD = r"[0-9A-Za-z._:]++"
_WORDS = r"[^|\\\s]++(?: [^|\\\s]++)*+"  # single spaces between words (tools, signatures)
_NOTE = r"[^\\\s]++(?: (?!-->(?:\n|\Z))[^\\\s]++)*+"  # up to the line's last " -->"
# title_said_once's quick no, told by the pattern: the body's first character and the title's (group t0)
# are ASCII letters or digits that differ but for case. Then the body cannot open with the title, and the
# (empty) group this captures says so.
_OPENS_OTHERWISE = r"(?:(?(t0)(?=[0-9A-Za-z])(?!(?i:(?P=t0)))|(?!))())?+"
ENTRY = re.compile(
    rf"### \[{_CATEGORY}\] (?=(?P<t0>[0-9A-Za-z])?)((?! )[^\n]++(?<! ))\n"
    rf"<!-- (?:id:({_WORD}) \| )?+(?:confidence:([0-9]++\.[0-9][0-9]) \| )?+injected:([0-9]++) \| "
    rf"src:{_SOURCE}(?: \| ch:{_CHANNEL})?+(?: \| ih:({_WORD}))?+(?: \| sess:({_WORD}))?+"
    rf"((?: \| (?:tool|sig|re|ok|state|vet):{_WORDS})*+) \| ([0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]) -->"
    rf"(?:\n<!-- why: ({_NOTE}) -->)?+(?:\n<!-- evidence: ({_NOTE}) -->)?+"
    rf"\n(?!<!--|[ \t]*#){_OPENS_OTHERWISE}([^\n]++(?:\n(?![ \t]*#)[^\n]++)*+)(?<!\s)"
    r"(?:\n\n(?=### )|\n?\Z)"
    # Or any other entry (the last group): every line up to the next heading.
    r"|(### [^\n]*+(?:\n(?!### )[^\n]*+)*+)(?:\n(?=### )|\Z)")
# The stretch ENTRY takes whole, token by token as render writes it.
_LATER_PART = re.compile(rf"(?: \| tool:({_WORDS}))?+(?: \| sig:({_WORDS}))?+(?: \| re:([0-9]++))?+"
                         rf"(?: \| ok:([0-9]++))?+(?: \| state:([a-z]++))?+(?: \| vet:({_WORD}))?+")

_STATES = {text: member for text, member in STATES.items() if member is not State.active}  # render omits active
_COUNTS = {str(number): number for number in range(1000)}  # counts as render writes them
# Confidence text -> its number, for the texts that read back as written (two decimals); 0.00-1.00 at
# first, others as they are met. Dates likewise (store_meta.real_date), both bounded. None: no token.
_CONFIDENCES: dict[str | None, float | None] = {
    f"{hundredths / 100:.2f}": float(f"{hundredths / 100:.2f}") for hundredths in range(101)}
_CONFIDENCES[None] = None
_KEPT = 10_000
_RUN = 1024  # records made at a time: few enough that their dicts are still in the CPU's cache
# Stretch text -> what it reads as (_later_part), bounded like the tables above.
_LATER_PARTS: dict[str, tuple] = {}


def _count(text: str, least: int) -> int | None:
    """A count as render writes it (no leading zero), at least `least`; None for any other text."""
    number = _COUNTS.get(text)
    if number is None and text[0] != "0":
        number = int(text)
    return None if number is None or number < least else number


def _confidence(text: str) -> float | None:
    number = float(text)
    if not (math.isfinite(number) and f"{number:.2f}" == text):
        return None  # e.g. "00.50": the full reader takes it (and render writes it otherwise)
    if len(_CONFIDENCES) < _KEPT:
        _CONFIDENCES[text] = number
    return number


def _remember(table: dict, text: str, read: tuple | None) -> tuple | None:
    if read is not None and len(table) < _KEPT:
        table[text] = read
    return read


def _delimiter(text: str | None) -> bool:
    """Whether render escapes something in `text`, a value with no backslash: a comment delimiter."""
    return text is not None and ("<!--" in text or "-->" in text)


def _later_part(text: str) -> tuple[dict, bool, bool] | None:
    """What the tokens after `sess:` (" | re:1 | ok:2") read as, when render writes them so: (the fields
    they state, whether render writes tool and sig back as they are, whether the state is retired);
    None for any other text."""
    part = _LATER_PART.fullmatch(text)
    if part is None:
        return None
    tool, sig, re_, ok, state, vet = part.groups()
    read = {"tool": tool, "sig": sig, "re": 0 if re_ is None else _count(re_, 1),  # render omits 0
            "ok": 0 if ok is None else _count(ok, 1), "state": State.active if state is None else _STATES.get(state),
            "vet": vet}
    if None in (read["re"], read["ok"], read["state"]):
        return None
    as_written = not (_delimiter(tool) or _delimiter(sig))
    stated = {key: value for key, value in read.items() if value is not None and value != 0 and value is not State.active}
    return _remember(_LATER_PARTS, text, (stated, as_written, read["state"] is State.retired))


def _rare(values: dict, date: str, confidence: str | None, injected: str) -> bool:
    """The lookups of `read_entries` again for an entry whose text missed a table (a date or confidence
    first met, a count of 1,000 or more, or text render does not write), filling `values`: whether the
    entry is render's."""
    read = {"date": real_date(date), "injected": _count(injected, 0)}
    if confidence is not None:
        read["confidence"] = _confidence(confidence)
    values.update(read)
    return None not in read.values()


def read_entries(text: str, first: int, stop: int, include_retired: bool, rules: ParsedRules, other) -> None:
    """Append to `rules` the entries from offset `first` (a heading) up to `stop` (the text's end less a
    final newline), each with its span when render writes it back as it is. `other(first, end, last)`
    reads an entry this pattern does not take: (record, whether its text is render's). Written for speed
    (this loop is most of reading a large store): table lookups, and the record made in place."""
    spans, bound, keep, size = rules.spans.append, rules.bounds.append, rules.append, len(text)
    starts, copy, confidences, counts, dates = _STARTS, dict.copy, _CONFIDENCES, _COUNTS, KNOWN_DATES
    later_parts, retired = _LATER_PARTS, State.retired
    as_written = STATED_AS_WRITTEN
    made, fields = [], []  # entries read here and not yet made records: their values, their fields sets

    def make() -> None:  # the records of `made`, after the ones before them (an entry `other` reads comes next)
        rules.extend(made_now := records(made, fields))
        rules.spans.extend(made_now if fields.count(as_written) == len(fields) else
                           [rule if field is as_written else None for rule, field in zip(made_now, fields)])
        made.clear()
        fields.clear()

    for entry in ENTRY.finditer(text, first):  # one match per entry, each where the one before ended
        (category, _, title, rule_id, confidence, injected, src, ch, ih, sess, later, date, why, evidence,
         opens_otherwise, body, any_other) = entry.groups()
        at, end = entry.span()
        # The title's spacing and printability, and no escape in it or the body (the pattern leaves them).
        fast = any_other is None and not ("  " in title or "\\" in title or not title.isprintable() or "\\" in body)
        if fast:
            values = copy(starts[category][src][ch])  # the pattern took only these names
            try:
                values["date"] = dates[date]
                values["confidence"] = confidences[confidence]
                values["injected"] = counts[injected]
            except KeyError:
                fast = _rare(values, date, confidence, injected)
            written, dropped = True, False
            if later:
                part = later_parts.get(later) or _later_part(later)
                if part is None:
                    fast = False
                else:
                    stated, written, dropped = part
                    values.update(stated)
                    dropped = dropped and not include_retired
        if not fast:
            if made:
                make()
            last = end == size  # else the match ends where the next heading starts
            rule, written = other(at, stop if last else end - 1, last)
            if include_retired or rule.state is not retired:
                keep(rule)
                spans(rule if written else None)
                bound(at)
                bound(stop if last else end - 2)
            continue
        values["id"] = rule_id or ""
        values["ih"] = ih
        values["sess"] = sess
        values["extra"] = []
        # Render escapes "<!--" and "-->" (with no backslash in the entry, nothing else: the values the pattern
        # takes as words have neither, and no body line starts with "#"); "<" and ">" are quicker to look for.
        if written and (("<" in title and "<!--" in title) or (">" in title and "-->" in title)
                        or ("<" in body and "<!--" in body) or (">" in body and "-->" in body)):
            written = False
        if why is not None or evidence is not None:
            values["why"], values["evidence"] = why, evidence
            written = written and not (_delimiter(why) or _delimiter(evidence))
        if opens_otherwise is None:
            said = title_said_once(title, body)  # unless its own quick no (told by the pattern) says it need not
            if said != (title, body):
                (title, body), written = said, False
        values["title"], values["body"] = title, body
        if not dropped:
            made.append(values)
            fields.append(as_written if written else as_written.made_from(values))
            if len(made) == _RUN:
                make()
            bound(at)
            bound(stop if end == size else end - 2)
    if made:
        make()
