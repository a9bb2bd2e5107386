"""The session log on disk: append-only JSONL, one event per line, durable per event.

Each event is flushed and fsynced as it is written, so a run killed at any point leaves every event it
reported. The log is never rewritten; a resume appends to it. Reading is forgiving where a crash can
leave damage (a torn last line is skipped with a note) and strict nowhere else a user could be hurt.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from pydantic import ValidationError

from agentuse.core.errors import AgentuseError
from agentuse.core.file_access import make_folder, read_regular, writing
from agentuse.runtime.events import EVENT_ADAPTER, Event, read_back


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class SessionError(AgentuseError):
    """A session that cannot be found, read or resumed."""


class SessionLog:
    """Appends events to `<session_dir>/<id>.jsonl`."""

    def __init__(self, path: Path, *, clock: Callable[[], str] = utc_now) -> None:
        self.path = path
        self.clock = clock

    @property
    def session_id(self) -> str:
        return self.path.stem

    @classmethod
    def create(cls, session_dir: Path, session_id: str, *, clock: Callable[[], str] = utc_now) -> "SessionLog":
        path = session_dir / f"{session_id}.jsonl"
        with writing(path, kept="the run did not start"):
            make_folder(session_dir, kept="the run did not start")
            # "x" refuses to reuse an id: two runs must never interleave in one log.
            with open(path, "x", encoding="utf-8"):
                pass
        return cls(path, clock=clock)

    def append(self, event: Event) -> Event:
        if event.at is None:
            event.at = self.clock()
        line = event.model_dump_json() + "\n"
        # A failed append leaves at most a torn last line, which every reader skips.
        with writing(self.path, kept=f"{self.path} keeps every event written before this one"), \
                open(self.path, "a+b") as handle:
            # A crash can leave a torn last line; start on a fresh line so this event stays readable.
            if handle.tell() > 0:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":
                    handle.seek(0, os.SEEK_END)
                    handle.write(b"\n")
            handle.write(line.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        return event

    def read(self) -> tuple[list[Event], list[str]]:
        return read_events(self.path)


def read_events(path: Path) -> tuple[list[Event], list[str]]:
    """Every readable event and a note for each line that could not be read (never a traceback)."""
    try:
        raw = read_regular(path, "session log")
    except FileNotFoundError:
        raise SessionError(f"session log {path} does not exist") from None
    events: list[Event] = []
    notes: list[str] = []
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            events.append(EVENT_ADAPTER.validate_python(json.loads(line.decode("utf-8"))))
        except (ValueError, ValidationError) as problem:  # UnicodeDecodeError is a ValueError
            last = all(not rest.strip() for rest in lines[number:])
            notes.append(f"{path.name}:{number}: {_unreadable(problem, line, last=last)}")
    return read_back(events), notes


def _unreadable(problem: ValueError, line: bytes, *, last: bool) -> str:
    # A character cut off at the very end of the last line is crash damage; any other bad byte means the
    # file is not UTF-8 text (something else wrote it), and "interrupted" would send the reader astray.
    cut_off = last and problem.end == len(line) and problem.reason == "unexpected end of data" \
        if isinstance(problem, UnicodeDecodeError) else True
    if not cut_off:
        return f"not UTF-8 text (byte {problem.start + 1} is 0x{line[problem.start]:02x}): line ignored"
    return "torn last line (the run was interrupted while writing) ignored" if last else "unreadable line ignored"


def process_started(pid: int) -> int | None:
    """When process `pid` started, in clock ticks since boot (Linux's /proc), or None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return int(fields[19])  # field 22, starttime; the fields after the name begin at field 3
    except (OSError, IndexError, ValueError):
        return None


def this_process() -> dict[str, int | None]:
    """How an event names the process writing the log: its pid, and when that process started."""
    pid = os.getpid()
    return {"pid": pid, "pid_started": process_started(pid)}


def pid_alive(pid: int, started: int | None = None) -> bool:
    """Whether the process that wrote a log is still running. A container gives its processes the same
    small pids every time (its first is always pid 1), so the next job sharing the state directory is often
    a process with a killed job's pid: when the log says when its writer started, a process with that pid
    that started at another time is someone else."""
    if started is not None and (now := process_started(pid)) is not None:
        return now == started
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return False
    return True


def sessions_roots(data_dir: Path) -> list[Path]:
    """Every project's session folder (spec Storage: project/{project-hash}/session/)."""
    return sorted(p for p in (data_dir / "project").glob("*/session") if p.is_dir())


def list_logs(roots: list[Path]) -> list[Path]:
    """Session logs, newest first: ids are ULIDs, so name order is start order."""
    logs = [log for root in roots for log in root.glob("*.jsonl")]
    return sorted(logs, key=lambda log: log.stem, reverse=True)


def find_log(ref: str, roots: list[Path]) -> Path:
    """The one log whose id starts with `ref` (case-insensitive); a unique prefix is enough."""
    ref = ref.strip().upper()
    if not ref:
        raise SessionError("give a session id (see `agentuse sessions list`)")
    matches = [log for log in list_logs(roots) if log.stem.upper().startswith(ref)]
    if not matches:
        raise SessionError(f"no session matches '{ref}' (see `agentuse sessions list`)")
    if len(matches) > 1:
        shown = ", ".join(log.stem for log in matches[:5])
        raise SessionError(f"'{ref}' matches {len(matches)} sessions ({shown}); give more characters of the id")
    return matches[0]
