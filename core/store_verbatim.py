"""A store's text known to be what `render` writes for its parse, and counting in it in place (`bump`):
what lets a run record its injection by rewriting only the counted rules' metadata lines."""

from __future__ import annotations

from array import array
from itertools import compress, count, repeat
from operator import add, attrgetter
from typing import NamedTuple

from agentuse.core.learning import new_values
from agentuse.core.store_doc import ParsedRules, StoreDoc
from agentuse.core.store_meta import CANONICAL_META, canonical_meta, meta_line
from agentuse.core.store_write import header

_ID = attrgetter("id")


class Verbatim(NamedTuple):
    """A store's text that `render` of its parse gives back as it is, with each record's id and where its
    entry starts: what `bump` needs to count in place."""

    text: str
    ids: tuple[str, ...]
    starts: array


def verbatim(doc: StoreDoc, text: str) -> Verbatim | None:
    """`text` as a Verbatim when `render(doc) == text`, for a doc `parse(text)` has just made (its records
    not changed since); else None. Told from what parse noted, without rendering: every entry is its
    record's rendering, and the header and the blank lines between are render's own."""
    rules = doc.learnings
    if not isinstance(rules, ParsedRules) or rules.source is not text or rules.drawn:
        return None
    at = len(header(doc)) + 2  # where render puts the first entry
    if not text.startswith(header(doc)):
        return None
    bounds = rules.bounds
    for index, span in enumerate(rules.spans):
        if span is None or bounds[2 * index] != at or text[at - 2:at] != "\n\n":
            return None
        at = bounds[2 * index + 1] + 2
    if not (len(text) == at - 1 and text.endswith("\n") if rules else text == header(doc) + "\n"):
        return None
    return Verbatim(text, tuple(map(_ID, rules)), bounds[::2])


def bump(known: Verbatim, ids: set[str], counter: str) -> Verbatim:
    """`render` of the doc `parse(known.text)` gives after adding one to `counter` of the records in
    `ids`: only those records' metadata lines (each the line after its heading) are rendered again."""
    text, starts = known.text, known.starts
    pieces, at, moved = [], 0, []  # moved: (index, characters the line grew by)
    for index in compress(count(), map(ids.__contains__, known.ids)):  # (C loops: a store may be large)
        start = text.index("\n", starts[index]) + 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        meta = CANONICAL_META.fullmatch(text, start, end)
        values = new_values()
        if meta is None or canonical_meta(meta, values) is None:
            raise ValueError(f"bump needs a Verbatim text; the line at {start} is not a metadata line")
        values[counter] += 1
        line = meta_line(values)
        pieces += [text[at:start], line]
        at = end
        if len(line) != end - start:
            moved.append((index, len(line) - (end - start)))
    if moved:  # the entries after a line that grew start later
        starts, shift = array("q", starts), 0
        for (index, grew), (following, _) in zip(moved, [*moved[1:], (len(starts) - 1, 0)], strict=True):
            shift += grew
            starts[index + 1:following + 1] = array("q", map(add, starts[index + 1:following + 1], repeat(shift)))
    return Verbatim("".join([*pieces, text[at:]]), known.ids, starts)
