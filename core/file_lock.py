"""The lock every write takes (DESIGN: Storage rules): an exclusive `flock` on the side file `<file>.lock`.

The same lock `filelock` takes on POSIX systems (so a process holding one with `filelock`, an older agentuse
included, excludes this one and the other way round), in one small module: importing filelock 4 costs about
7 ms, paid by every command that writes. Other systems use filelock itself, behind the same class.

One instance per path in a process, re-entrant within a thread and exclusive across threads (each thread
holds its own descriptor, and `flock` excludes descriptors, not processes) and across processes. An
instance is kept alive while any thread holds it, and a forked child closes every descriptor it inherited
(never unlocking them: the lock belongs to the open file, shared with the parent), so a lock dies with the
process that took it. Waiting longer than the timeout is an error naming the file, never a traceback.
"""

from __future__ import annotations

import errno
import os
import threading
import time
import weakref
from pathlib import Path
from types import TracebackType

from agentuse.core.errors import AgentuseError
from agentuse.core.file_access import FileAccessError, write_message

try:
    import fcntl
except ImportError:  # not a POSIX system: filelock does the locking
    fcntl = None

_FIRST_POLL_SECONDS, _LAST_POLL_SECONDS = 0.001, 0.05  # a writer holds the lock for milliseconds
# A wait this long is not a writer's milliseconds: say whose lock the command is waiting for, once, rather
# than sit silent in a CI log until the timeout.
WAIT_NOTICE_SECONDS = 1.0
_BUSY = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES}  # some filesystems say EACCES for "held"
_UNSUPPORTED = {errno.ENOSYS, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}


class LockTimeout(AgentuseError):
    """Another process (or another task of this one) held a file's lock for longer than the wait allows."""


class LocksUnsupported(AgentuseError):
    """The filesystem holding the state directory cannot lock files."""


def timed_out(lock_file: str, waited: float) -> LockTimeout:
    return LockTimeout(
        f"{lock_file} has been held by another agentuse process (or another task of this one) for {waited:g} s. "
        "Wait for it to finish; if no agentuse process is running, run the command again (a lock dies with "
        "its process).")


class FileLock:
    _instances: weakref.WeakValueDictionary[str, FileLock] = weakref.WeakValueDictionary()
    _held_now: set[FileLock] = set()  # strong references: an instance held by any thread is never collected
    _registry_lock = threading.Lock()

    def __new__(cls, lock_file: str, timeout: float) -> FileLock:
        """The one instance for `lock_file` (its folder resolved, so two spellings are one lock); `timeout`,
        the seconds `acquire()` waits by default, is the latest caller's (every caller passes the same)."""
        key = os.path.join(os.path.realpath(os.path.dirname(lock_file) or "."), os.path.basename(lock_file))
        with cls._registry_lock:
            found = cls._instances.get(key)
            if found is None:
                found = super().__new__(cls)
                found.lock_file = lock_file
                found._depth = threading.local()  # this thread's re-entrance depth
                found._fds = {}  # thread ident -> its descriptor, so a forked child can close them all
                found._fallback = None
                cls._instances[key] = found
            found.timeout = timeout
            return found

    @property
    def is_locked(self) -> bool:
        return getattr(self._depth, "value", 0) > 0

    def acquire(self, timeout: float | None = None) -> FileLock:
        """Wait at most `timeout` seconds (the instance's by default; negative: as long as it takes)."""
        wait = self.timeout if timeout is None else timeout
        if self.is_locked:
            self._depth.value += 1
            return self
        if fcntl is None:
            self._acquire_fallback(wait)
        else:
            fd = self._flock(wait)
            with self._registry_lock:
                self._fds[threading.get_ident()] = fd
        with self._registry_lock:
            FileLock._held_now.add(self)
        self._depth.value = 1
        return self

    def release(self) -> None:
        if not self.is_locked:
            return
        self._depth.value -= 1
        if self._depth.value:
            return
        try:
            if fcntl is None:
                self._fallback.release()
            else:
                with self._registry_lock:
                    fd = self._fds.pop(threading.get_ident())
                try:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                finally:
                    os.close(fd)
        finally:
            with self._registry_lock:
                if not self._fds and not (self._fallback is not None and self._fallback.is_locked):
                    FileLock._held_now.discard(self)

    def __enter__(self) -> FileLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()

    def _flock(self, wait: float) -> int:
        # O_NOFOLLOW: a link planted at the lock file is refused, never followed (and never truncated).
        try:
            fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as problem:
            raise FileAccessError(_open_message(self.lock_file, problem), cause=problem) from None
        start, poll, told = time.monotonic(), _FIRST_POLL_SECONDS, False
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return fd
                except OSError as problem:
                    if problem.errno in _UNSUPPORTED:
                        raise LocksUnsupported(
                            f"{self.lock_file}: this filesystem cannot lock files ({problem.strerror}), and "
                            "agentuse locks every write. Put the state directory on a local disk "
                            "(AGENTUSE_DATA_DIR).") from None
                    if problem.errno not in _BUSY:
                        raise
                waited = time.monotonic() - start
                if 0 <= wait <= waited:
                    raise timed_out(self.lock_file, wait) from None
                if not told and waited >= WAIT_NOTICE_SECONDS:
                    told = True
                    _say_waiting(self.lock_file, wait)
                time.sleep(poll if wait < 0 else min(poll, wait - waited))
                poll = min(poll * 2, _LAST_POLL_SECONDS)
        except BaseException:
            os.close(fd)
            raise

    @classmethod
    def _forget_after_fork(cls) -> None:
        """A forked child holds none of its parent's locks: it must take them again, and wait for the parent
        like any other process. Its copies of every thread's descriptors are closed, never unlocked."""
        cls._registry_lock = threading.Lock()
        for found in list(cls._instances.values()):
            for fd in found._fds.values():
                try:
                    os.close(fd)
                except OSError:
                    pass
            found._fds, found._depth = {}, threading.local()
        cls._held_now = set()

    def _acquire_fallback(self, wait: float) -> None:
        import filelock

        if self._fallback is None:
            self._fallback = filelock.FileLock(self.lock_file, is_singleton=True)
        try:
            self._fallback.acquire(timeout=wait)
        except filelock.Timeout:
            raise timed_out(self.lock_file, wait) from None


def waiting_message(lock_file: str, wait: float) -> str:
    limit = f"gives up after {wait:g} s" if wait >= 0 else "waits as long as it takes"
    return (f"waiting for {lock_file}: another agentuse process (or another task of this one) holds it; this "
            f"command goes on as soon as it is released ({limit})")


def _say_waiting(lock_file: str, wait: float) -> None:
    # A warning on the `agentuse` logger: with no logging set up (the CLI) Python's last-resort handler puts
    # the one line on stderr; under Prefect it lands in the run's log; core itself never prints.
    import logging

    logging.getLogger("agentuse.lock").warning(waiting_message(lock_file, wait))


def _open_message(lock_file: str, problem: OSError) -> str:
    """Why the side file could not be opened, in the words every refused write uses; nothing was written."""
    if problem.errno == errno.ELOOP:
        return (f"{lock_file} is a symbolic link, and agentuse never follows a link at a lock file: remove it, "
                "then run the command again; nothing was written")
    return write_message(Path(lock_file), problem, kept="nothing was written")


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=FileLock._forget_after_fork)
