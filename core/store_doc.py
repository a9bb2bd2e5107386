"""What a learnings file reads into, shared by the reader, the writer and the in-place counter: the doc,
the error that names a file and line, ids, and the list `parse` returns, which remembers the text it read."""

from __future__ import annotations

import secrets
from array import array

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentuse.core.errors import AgentuseError
from agentuse.core.learning import Learning, one_line
from agentuse.core.model_defaults import empty_list

RETIRED_SECTION = "## Retired"  # older upstream files parked retired entries under this heading


class StoreFormatError(ValueError, AgentuseError):
    """A learnings file that cannot be read; names the file and the 1-based line. An AgentuseError, so
    every surface reports it as one line and exits 1 instead of printing a traceback."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file, self.line, self.message = file, line, message

    def __reduce__(self):  # survive pickling across processes (the default would lose file/line)
        return (type(self), (self.file, self.line, self.message))


class StoreDoc(BaseModel):
    """One learnings file: its breadcrumb header and its entries in file order."""

    model_config = ConfigDict(validate_assignment=True)

    name: str
    agent: str | None = None
    learnings: list[Learning] = Field(default_factory=empty_list)

    @field_validator("name", "agent")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        return None if value is None else one_line(value)


def new_id(taken: set[str], rng=None) -> str:
    """8 hex characters, re-drawn on collision. Pass a `random.Random` for repeatable ids."""
    while True:
        candidate = secrets.token_hex(4) if rng is None else f"{rng.getrandbits(32):08x}"
        if candidate not in taken:
            return candidate


class ParsedRules(list):
    """The learnings list `parse` returns: a plain list of the records, which also remembers where in the
    file's text each record's entry is, when that text is exactly what `render_entry` writes for the record
    as read. `render` copies such an entry's text instead of rendering it again while the record has not
    been assigned since (`store_write._reused` tells), so writing back a store after
    changing a few records renders only those (a recorded injection changes one counter per rule sent).
    Any other list (a doc built or assigned anew) renders every record."""

    __slots__ = ("source", "spans", "bounds", "drawn")

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.source = ""
        self.spans: list[Learning | None] = []  # per entry read: its record when its text is render's, or None
        self.bounds = array("q")  # per entry read: where its text starts and ends in `source`
        self.drawn = False  # parse gave some entry a new id
