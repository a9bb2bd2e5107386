"""A unified diff as rows of a side-by-side view (old on the left, new on the right), the way a code
review shows a change. Removed and added lines of one change are paired row by row; an unpaired line
faces a blank. The stylesheet folds the same rows into one column on a narrow screen."""

from __future__ import annotations

import re

from pydantic import BaseModel

HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$")


class Row(BaseModel):
    kind: str  # hunk | same | change
    old_no: int | None = None
    old: str | None = None  # None: nothing on this side (a blank cell)
    new_no: int | None = None
    new: str | None = None
    header: str = ""  # the hunk's @@ line


class FileDiff(BaseModel):
    name: str
    rows: list[Row]
    added: int
    removed: int


def parse(name: str, text: str) -> FileDiff:
    rows: list[Row] = []
    dels: list[tuple[int, str]] = []
    adds: list[tuple[int, str]] = []
    old_no = new_no = 0
    added = removed = 0

    def flush() -> None:
        for i in range(max(len(dels), len(adds))):
            left = dels[i] if i < len(dels) else (None, None)
            right = adds[i] if i < len(adds) else (None, None)
            rows.append(Row(kind="change", old_no=left[0], old=left[1], new_no=right[0], new=right[1]))
        dels.clear()
        adds.clear()

    for line in text.splitlines():
        if line.startswith(("--- ", "+++ ")) and not rows and not dels and not adds:
            continue  # the file header: the summary names the file
        found = HUNK.match(line)
        if found:
            flush()
            old_no, new_no = int(found.group(1)), int(found.group(2))
            rows.append(Row(kind="hunk", header=line))
        elif line.startswith("-"):
            dels.append((old_no, line[1:]))
            old_no += 1
            removed += 1
        elif line.startswith("+"):
            adds.append((new_no, line[1:]))
            new_no += 1
            added += 1
        elif line.startswith("\\"):
            continue  # "\ No newline at end of file"
        else:
            flush()
            body = line[1:] if line.startswith(" ") else line
            rows.append(Row(kind="same", old_no=old_no, old=body, new_no=new_no, new=body))
            old_no += 1
            new_no += 1
    flush()
    return FileDiff(name=name, rows=rows, added=added, removed=removed)


def file_diffs(diffs: dict[str, str]) -> list[FileDiff]:
    """Each file's diff once, in the order the tidy-up reported them; a file it left alone has no rows."""
    return [parse(name, text or "") for name, text in diffs.items()]
