"""Reading and writing the user's files: what the operating system refuses becomes one clear error.

Every read of a file a user can point agentuse at (agent files, learnings files, session logs, replay
files) goes through `read_regular`, which refuses anything but a regular file *before* opening it:
opening a FIFO blocks until a writer comes, and /dev/zero never ends. Every write goes through `writing`,
which turns a full disk, a read-only file system or a denied permission into a message that names the
file, says what to do, and says that the file was left as it was (writes are atomic or append-only).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agentuse.core.errors import AgentuseError


class FileAccessError(AgentuseError, OSError):
    """A file agentuse could not read or write. An OSError too, so code that tolerates an unwritable state
    dir (`except OSError`) keeps doing so."""

    def __init__(self, message: str, *, cause: OSError | None = None) -> None:
        super().__init__(message)
        self.errno = cause.errno if cause is not None else None

    def __str__(self) -> str:
        return str(self.args[0])


_KINDS = {stat.S_IFIFO: "a named pipe (FIFO)", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket"}


def _a(what: str) -> str:
    return ("an " if what[0] in "aeiou" else "a ") + what


def check_regular(path: Path, what: str) -> bool:
    """False when `path` does not exist (each caller says so in its own words); raises when it exists and is
    not a regular file, or cannot even be looked at. Symlinks are followed."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as problem:
        raise FileAccessError(_read_message(path, what, problem), cause=problem) from None
    if stat.S_ISDIR(mode):
        raise FileAccessError(f"{path}: is a directory, not {_a(what)}")
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise FileAccessError(f"{path}: is {kind}, not {_a(what)}; agentuse reads only regular files")
    return True


def read_regular(path: Path, what: str) -> bytes:
    """The bytes of a regular file. FileNotFoundError is left to the caller; everything else is one error."""
    if not check_regular(path, what):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise
    except OSError as problem:
        raise FileAccessError(_read_message(path, what, problem), cause=problem) from None


def read_optional(path: Path, what: str) -> bytes | None:
    """`read_regular`, with a missing file read as None: the one reader of a file that may not exist yet
    (a store before its first rule, an archive before its first retirement, a snapshot's optional part)."""
    try:
        return read_regular(path, what)
    except FileNotFoundError:
        return None


def _read_message(path: Path, what: str, problem: OSError) -> str:
    if isinstance(problem, PermissionError):
        return f"{path}: could not read the {what}: permission denied; make it (and its folders) readable by you"
    return f"{path}: could not read the {what}: {problem.strerror or problem}"


@contextmanager
def writing(path: Path, *, kept: str | None = None) -> Iterator[None]:
    """Turn an OSError raised while writing `path` into one FileAccessError. `kept` says what is left of the
    file after a failed write; by default that it is as it was (every atomic write leaves it so)."""
    try:
        yield
    except (FileAccessError, FileExistsError):  # an exclusive create that lost a race is the caller's to handle
        raise
    except OSError as problem:
        raise FileAccessError(write_message(path, problem, kept=kept), cause=problem) from None


def make_folder(folder: Path, *, kept: str = "nothing was written") -> None:
    """`folder` and its parents, as `mkdir -p` makes them. A file where one of them belongs is one error
    naming it (`writing` leaves FileExistsError to exclusive creates, so a bare mkdir would escape it)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):  # the folder, or one of its parents, is a file
        blocker = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), folder)
        raise FileAccessError(f"{blocker}: is a file where agentuse keeps a folder; move it out of the way, then "
                              f"run the command again; {kept}") from None
    except OSError as problem:
        raise FileAccessError(write_message(folder, problem, kept=kept), cause=problem) from None


def write_message(path: Path, problem: OSError, *, kept: str | None = None) -> str:
    kept = kept or f"{path} was left as it was"
    code = problem.errno
    if code in (errno.ENOSPC, errno.EDQUOT):
        why = "no space left on device" if code == errno.ENOSPC else "disk quota exceeded"
        return f"{why} writing {path}: free some space and run the command again; {kept}"
    if code == errno.EROFS:
        return f"{path} is on a read-only file system: remount it writable or work elsewhere; {kept}"
    if code in (errno.EACCES, errno.EPERM):
        return (f"permission denied writing {path}: make it and its folder writable by you, then run the command "
                f"again; {kept}")
    if code == errno.EIO:
        return f"input/output error writing {path}: the disk may be failing; check it, then run the command again; {kept}"
    return f"could not write {path}: {problem.strerror or problem}; {kept}"
