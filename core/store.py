"""An agent's learnings: read, and written without losing or tearing anything. Where they live is
core/location.py (re-exported here: `store.locate`, `store.data_dir`, ...).

Every write locks a side file `<file>.lock` (never the file itself: `os.replace` swaps that inode out from
under any lock held on it), writes a temp file in the same folder, fsyncs it and renames it over the
target, so a reader sees the old bytes or the new bytes and never a mix, even when the writer is killed.
A file that does not parse is never overwritten: it is the user's data and they may be fixing it.

Nothing in the state directory is written through a symbolic link: a link planted at a store, archive,
snapshot or lock path would turn a routine save into a write to wherever it points. Such a write is
refused with one error naming the link (`LinkRefusedError`) rather than silently replacing the link: a
link there is either someone's mistake or someone's trick, and either way a person should look at it.
The agent file is the one file written through a link on purpose (`follow_symlinks=True`): a symlinked
agent file is the user's own arrangement, and the link must survive a tidy-up.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from agentuse.core.discovery import AGENT_SUFFIX
from agentuse.core.errors import AgentuseError
from agentuse.core.file_access import check_regular, make_folder, read_optional, writing
from agentuse.core.learning import Learning, State
# Where a store lives is its own module (no pydantic, no GitPython): `learnings --path` needs only that.
from agentuse.core.location import (  # noqa: F401 - re-exported
    STORE_SUFFIX,
    AgentLocation,
    DataDirError,
    data_dir,
    locate,
    project_hash,
    project_root,
)
from agentuse.core.store_format import (
    StoreDoc,
    StoreFormatError,
    Verbatim,
    bump,
    parse,
    render,
    render_entry,
    verbatim,
)

if TYPE_CHECKING:  # imported by lock_for: read-only commands never lock
    from agentuse.core.file_lock import FileLock

T = TypeVar("T")
# Writers hold the lock for milliseconds; a minute of waiting means something is wedged, so say so.
LOCK_TIMEOUT_SECONDS = 60.0
# A temp file this old cannot belong to a live writer; it was left by one that was killed mid-write.
STALE_TEMP_SECONDS = 60.0


# ---------------------------------------------------------------- locking and atomic writes


class LinkRefusedError(AgentuseError):
    """A file agentuse writes in its state directory is a symbolic link: writing would go wherever it points."""


def refuse_link(path: Path) -> None:
    if os.path.islink(path):
        raise LinkRefusedError(
            f"{path} is a symbolic link (to {os.readlink(path)}): agentuse never writes through a link in its "
            "state directory. Remove the link (or replace it with the real file) and run the command again.")


def lock_for(path: Path) -> FileLock:
    """The lock guarding `path`: side file `<path>.lock`. Re-entrant within a thread, exclusive across
    threads and processes (one instance per path, so a save() inside a transaction() cannot deadlock).
    A planted link at the lock file is refused like one at the file itself."""
    path = Path(os.path.abspath(path))
    make_folder(path.parent)
    refuse_link(Path(f"{path}.lock"))
    from agentuse.core.file_lock import FileLock

    return FileLock(f"{path}.lock", timeout=LOCK_TIMEOUT_SECONDS)


def _temp_pattern(path: Path) -> re.Pattern[str]:
    return re.compile(rf"^\.{re.escape(path.name)}\.[0-9a-f]{{8}}\.tmp$")


def _sweep_stale_temps(path: Path, *, older_than: float = STALE_TEMP_SECONDS) -> None:
    pattern, cutoff = _temp_pattern(path), time.time() - older_than
    with os.scandir(path.parent) as entries:
        for entry in entries:
            if not pattern.match(entry.name):
                continue
            try:
                stale = entry.stat(follow_symlinks=False).st_mtime < cutoff
            except FileNotFoundError:  # renamed into place meanwhile by a writer that ignored the lock
                continue
            if stale:
                Path(entry.path).unlink(missing_ok=True)


def sweep_temps(path: Path) -> None:
    """Every temp file a writer of `path` left, however fresh. Only for a caller holding every lock the
    writers of `path` take: then none of them is alive to be writing one."""
    real = Path(os.path.realpath(path))  # the agent file is written through its link, beside its target
    if real.parent.is_dir():
        _sweep_stale_temps(real, older_than=0.0)


def fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable. Some filesystems refuse to fsync a directory; the rename is
    # still atomic there, only its durability across a power cut is weaker.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, text: str | bytes, *, follow_symlinks: bool = False) -> None:
    """Replace `path` with `text` (UTF-8, newlines as given; bytes as they are) all at once, durably.
    The caller holds lock_for(path). A symlink at `path` is refused unless `follow_symlinks` (the agent
    file only: then the file it points to is replaced and the link stays). Any OSError (a full disk, a
    read-only file system) is one FileAccessError that names the file: the old file is intact, since
    nothing replaced it."""
    if follow_symlinks:
        path = Path(os.path.realpath(path))
    else:
        refuse_link(path)
        path = Path(os.path.abspath(path))
    existed = path.exists()
    with writing(path, kept=None if existed else f"{path} was not created"):
        _replace(path, text)
    fsync_dir(path.parent)


def _replace(path: Path, text: str | bytes) -> None:
    if path.exists() and not os.access(path, os.W_OK):
        # os.replace would happily swap out a read-only file; keep the owner's "do not write" meaning.
        raise PermissionError(errno.EACCES, "file is not writable", str(path))
    make_folder(path.parent)
    _sweep_stale_temps(path)
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    temp = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # new files get the usual umask
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)  # an agent file keeps its permissions
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------- the store


def _read(path: Path) -> str | None:
    return _read_both(path)[1]


def _read_both(path: Path) -> tuple[bytes | None, str | None]:
    data = read_optional(path, "learnings file")
    return data, None if data is None else _decode(path, data)


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")  # tolerate a BOM left by an editor
    except UnicodeDecodeError as bad:
        raise StoreFormatError(str(path), data[: bad.start].count(b"\n") + 1, "not valid UTF-8 text") from None


# Store path -> the last text this process read there that writes back as it is (`verbatim`), with the
# file's bytes: a store holding those bytes again is known to parse, and its counters can be bumped in
# place (`count`). Told by the bytes themselves, so a file changed since by anyone is simply not found
# here, and without decoding them again (a third of counting in a large store). A run reads its store
# just before counting the injection, so the count finds it.
_VERBATIM: dict[Path, tuple[Verbatim, bytes]] = {}
_VERBATIM_KEPT = 16  # stores; a long-lived process (serve) keeps the most recent ones
_VERBATIM_LOCK = threading.Lock()  # serve reads and counts from several threads


def _doc(location: AgentLocation, path: Path, text: str | None, data: bytes | None = None, *,
         include_retired: bool = False) -> StoreDoc:
    """The doc `text` reads as; when `data` (the bytes `text` was decoded from) is a store's and writes back
    as it is, remembered for `count`."""
    if text is None:
        return StoreDoc(name=location.name, agent=location.breadcrumb)
    doc = parse(text, filename=str(path), include_retired=include_retired)
    if not doc.name:
        doc.name = location.name
    if doc.agent is None:
        doc.agent = location.breadcrumb
    if data is not None and path == location.store_path and (known := verbatim(doc, text)) is not None:
        _remember(path, known, data)
    return doc


def _remember(path: Path, known: Verbatim, data: bytes) -> None:
    with _VERBATIM_LOCK:
        _VERBATIM.pop(path, None)
        _VERBATIM[path] = (known, data)
        while len(_VERBATIM) > _VERBATIM_KEPT:
            del _VERBATIM[next(iter(_VERBATIM))]


def count(location: AgentLocation, ids: set[str], counter: str) -> bool:
    """Add one to `counter` of the rules in `ids`, under the lock, when the store holds bytes this process
    read and found to write back as they are: only those rules' metadata lines are rendered again, and
    the file is what a transaction adding the same ones would write. False (nothing done) otherwise: the
    caller counts in a transaction."""
    path = location.store_path
    if path not in _VERBATIM:
        return False
    settle(location)
    with lock_for(path):
        data = read_optional(path, "learnings file")
        remembered = _VERBATIM.get(path)
        if data is None or remembered is None or data != remembered[1]:
            return False
        known = remembered[0]
        counted = bump(known, ids, counter)
        if counted.text != known.text:
            written = counted.text.encode("utf-8")  # what atomic_write would write for the text
            atomic_write(path, written)
            _remember(path, counted, written)
    return True


def _render_live(doc: StoreDoc) -> str:
    retired = [rule.id for rule in doc.learnings if rule.state is State.retired]
    if retired:
        # Written here they would be skipped on the next read, i.e. silently lost instead of archived.
        raise ValueError(f"retired learnings {', '.join(retired)} belong in the archive: remove them from "
                         "the store and pass them to archive()")
    return render(doc)


def pending_tidy_marker(location: AgentLocation) -> Path:
    """Present while a tidy-up commit (or a capture pass, or an undo) is writing: from before its first write
    of the agent file, store or archive until after its last."""
    return location.consolidations_dir / f"{location.key.removesuffix(AGENT_SUFFIX)}.pending"


def settle(location: AgentLocation) -> None:
    """Finish or roll back a tidy-up killed between writing the agent file and the store, before anything
    reads or writes the store: no reader ever sees one file after the tidy-up and the other before it.
    One stat in the common case; the recovery itself lives with the snapshots it reads."""
    if check_regular(pending_tidy_marker(location), "tidy-up marker"):  # an unreadable state dir says so here
        from agentuse.core import snapshots  # only after a crash, or while a commit is in flight

        snapshots.recover(location)


SETTLED_READ_ATTEMPTS = 3  # a commit takes milliseconds; a marker still there after three is stuck (see recover)


def settled_read(location: AgentLocation, read: Callable[[], T]) -> T:
    """`read()` (the agent file and the store, as a run or a report reads them) as of one moment no tidy-up
    commit or undo was between its writes: a run must never take the agent file from before a tidy-up and
    the store from after it (the rules it graduated would be in neither).

    No lock is taken (unless a commit is in flight: then `settle` waits for it), so a reader never writes to
    a state dir it only reads. Instead: the commit's
    pending marker is absent before the first read and after the last, and both files read the same bytes
    before and after `read()`. Any commit that overlapped would then have run entirely in between, and
    each of its writes in between changes a file (a write before the first read was seen by both reads)."""
    marker = pending_tidy_marker(location)
    for _ in range(SETTLED_READ_ATTEMPTS):
        settle(location)  # waits for a commit in flight (recover takes its locks), finishes a killed one
        clear = not marker.exists()
        pair = _bytes(location.agent_path), _bytes(location.store_path)
        value = read()
        if clear and not marker.exists() and (_bytes(location.agent_path), _bytes(location.store_path)) == pair:
            return value
    return value  # a marker recover cannot clear (a file edited by hand since the crash): undo explains it


def _bytes(path: Path) -> bytes | None:
    """For telling whether a file changed: a file that cannot be read (missing, a directory, denied) reads
    as nothing here, and the read itself then says what is wrong with it. Only a regular file is opened:
    opening a FIFO would block, and a device (/dev/zero) never ends."""
    try:
        return path.read_bytes() if stat.S_ISREG(os.stat(path).st_mode) else None
    except OSError:
        return None


def load(location: AgentLocation, *, settled: bool = False) -> StoreDoc:
    """The agent's store; an empty doc when there is none yet. Raises StoreFormatError (file:line).
    `settled`: the caller settled before taking the store's lock, which it holds: settling again here could
    take the commit's locks after the store's, the reverse of every writer's order (see snapshots.locks)."""
    if not settled:
        settle(location)
    data, text = _read_both(location.store_path)
    return _doc(location, location.store_path, text, data)


def load_archive(location: AgentLocation) -> StoreDoc:
    """Every archived entry, retired ones included."""
    path = location.archive_path
    return _doc(location, path, _read(path), include_retired=True)


@contextmanager
def transaction(location: AgentLocation) -> Iterator[StoreDoc]:
    """Lock, read, hand the doc to the caller, and write it back atomically if its text changed.

    Nothing is written when the block raises, or when the file does not parse (StoreFormatError is
    raised before the block runs). Loading rewrites applied: as injected:, drops retired entries and
    assigns missing ids, so a transaction on such a file saves those changes even if the caller made none.
    """
    path = location.store_path
    settle(location)
    with lock_for(path):
        data, original = _read_both(path)
        doc = _doc(location, path, original, data)
        yield doc
        text = _render_live(doc)
        if text != original and (original is not None or doc.learnings):
            atomic_write(path, text)


def save(location: AgentLocation, doc: StoreDoc) -> None:
    """Write `doc` as the agent's store, locked and atomic; refuses to replace a file that does not parse."""
    text = _render_live(doc)
    path = location.store_path
    settle(location)
    with lock_for(path):
        existing = _read(path)
        if existing is not None:
            parse(existing, filename=str(path))
        if text != existing:
            atomic_write(path, text)


def archive(location: AgentLocation, learnings: list[Learning], *, reason: str) -> None:
    """Append retired rules to the agent's archive file. The archive is only ever appended to. A rule whose
    newest archived copy is this very rule, as it is now, is not filed again: a writer killed after archiving
    it and before writing the store left it in both files, and the same command run again retires it again.
    Nor is the id a reason names: run again, a trade or a fold names the new rule's id, drawn afresh, so the
    second copy would differ in that alone."""
    if not learnings:
        return
    path = location.archive_path
    with lock_for(path):
        base, doc = _archive_base(location, read_optional(path, "learnings archive"))
        newest = {rule.id: rule for rule in doc.learnings} if doc is not None else {}  # the last copy wins
        fresh = [rule for rule in learnings if rule.id not in newest
                 or _filed(newest[rule.id]) != _filed(retired(rule, reason=reason))]
        if fresh:
            atomic_write(path, base + archive_entries(fresh, reason=reason))


_DRAWN_ID = re.compile(r"\b[0-9a-f]{8}\b")  # store_doc.new_id's form


def drawn_before(location: AgentLocation, rule: Learning, *, reason: str) -> str | None:
    """The id the reason of `rule`'s newest archived copy names, when that copy is this very retirement: a
    writer killed after archiving it and before writing the store drew that id for the rule taking its place,
    and `archive` keeps the first copy. Run again, the new rule takes that id too, or the archive would name a
    rule that never was (an approval following it would credit nothing). None otherwise."""
    newest = {r.id: r for r in load_archive(location).learnings}.get(rule.id)  # the last copy wins
    if newest is None or _filed(newest) != _filed(retired(rule, reason=reason)):
        return None
    named = _DRAWN_ID.findall(newest.why or "")
    return named[-1] if named else None


def _filed(archived: Learning) -> dict:
    """What tells two archived copies of a rule apart as two retirements: anything but the ids their reasons
    name (`traded for 3d4ea8ef`, `folded into b5d1c14b`)."""
    return {**archived.model_dump(), "why": _DRAWN_ID.sub("<id>", archived.why or "")}


def archive_base(location: AgentLocation, existing: bytes | None) -> str:
    """What new archive entries are appended to: the archive as it is, right-trimmed, or a fresh header.
    So the archive before an append, right-trimmed, is always an exact prefix of the file after it, and one
    append's bytes stay where they were however many come after (undo takes a tidy-up's back out)."""
    return _archive_base(location, existing)[0]


def _archive_base(location: AgentLocation, existing: bytes | None) -> tuple[str, StoreDoc | None]:
    text = None if existing is None else _decode(location.archive_path, existing)
    if text is None or not text.strip():
        return render(StoreDoc(name=location.name, agent=location.breadcrumb)).rstrip(), None
    doc = parse(text, filename=str(location.archive_path), include_retired=True)  # never append to what we cannot read
    return text.rstrip(), doc


def archive_entries(learnings: list[Learning], *, reason: str) -> str:
    """The text one append adds after `archive_base`: the rules, retired with the reason."""
    return "".join(f"\n\n{render_entry(retired(rule, reason=reason))}" for rule in learnings) + "\n"


def retired(rule: Learning, *, reason: str) -> Learning:
    """`rule` as the archive holds it once retired for `reason`."""
    return Learning.model_validate({**rule.model_dump(), "state": State.retired, "why": f"retired: {reason}"})


def unarchive(location: AgentLocation, rule_id: str) -> Learning | None:
    """Take the newest archived copy of `rule_id` out of the archive and return it as archived (retired,
    `why` giving the reason), or None when there is none. Only that entry's lines leave the file; every
    other entry keeps its bytes. The caller holds lock_for(location.archive_path)."""
    path = location.archive_path
    text = _read(path)
    if text is None:
        return None
    doc = parse(text, filename=str(path), include_retired=True)  # never cut into what we cannot read
    lines = text.split("\n")
    starts = [index for index, line in enumerate(lines) if line.startswith("### ")]
    spans = list(zip(starts, [*starts[1:], len(lines)], strict=True))
    found = [(rule, span) for rule, span in zip(doc.learnings, spans, strict=True) if rule.id == rule_id]
    if not found:
        return None
    rule, (start, end) = found[-1]
    head = "\n".join(lines[:start]).rstrip()
    tail = "\n".join(lines[end:]).strip("\n")
    atomic_write(path, head + (f"\n\n{tail}" if tail else "") + "\n")
    return rule
