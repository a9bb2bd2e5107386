"""The lock every write takes (DESIGN: Storage rules): an exclusive `flock` on the side file `<file>.lock`.

The same lock `filelock` takes on POSIX systems (so a process holding one with `filelock`, an older agentuse
included, excludes this one and the other way round), in one small module: importing filelock 4 costs about
7 ms, paid by every command that writes. Other systems use filelock itself, behind the same class.

One instance per path in a process, re-entrant within a thread and exclusive across threads (each thread
holds its own descriptor, and `flock` excludes descriptors, not processes) and across processes. Waiting
longer than the timeout is an error with the file named, never a traceback.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from types import TracebackType

from agentuse.core.errors import AgentuseError

try:
    import fcntl
except ImportError:  # not a POSIX system: filelock does the locking
    fcntl = None

_FIRST_POLL_SECONDS, _LAST_POLL_SECONDS = 0.001, 0.05  # a writer holds the lock for milliseconds


class LockTimeout(AgentuseError):
    """Another process held a file's lock for longer than the wait allows."""


def timed_out(lock_file: str, waited: float) -> LockTimeout:
    return LockTimeout(
        f"{lock_file} has been held by another agentuse process for {waited:g} s. Wait for it to finish; "
        "if no agentuse process is running, run the command again (a lock dies with its process).")


class FileLock:
    _instances: weakref.WeakValueDictionary[str, FileLock] = weakref.WeakValueDictionary()
    _instances_lock = threading.Lock()

    def __new__(cls, lock_file: str, timeout: float) -> FileLock:
        with cls._instances_lock:
            found = cls._instances.get(lock_file)
            if found is None:
                found = super().__new__(cls)
                found.lock_file, found.timeout = lock_file, timeout
                found._held = threading.local()  # this thread's descriptor and depth
                found._fallback = None
                cls._instances[lock_file] = found
            return found

    @property
    def is_locked(self) -> bool:
        return getattr(self._held, "depth", 0) > 0

    def acquire(self, timeout: float | None = None) -> FileLock:
        wait = self.timeout if timeout is None else timeout
        if self.is_locked:
            self._held.depth += 1
            return self
        if fcntl is None:
            self._acquire_fallback(wait)
        else:
            self._held.fd = self._flock(wait)
        self._held.depth = 1
        return self

    def release(self) -> None:
        if not self.is_locked:
            return
        self._held.depth -= 1
        if self._held.depth:
            return
        if fcntl is None:
            self._fallback.release()
            return
        fd, self._held.fd = self._held.fd, None
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> FileLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()

    def _flock(self, wait: float) -> int:
        # O_NOFOLLOW: a link planted at the lock file is refused, never followed (and never truncated).
        fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        start, poll = time.monotonic(), _FIRST_POLL_SECONDS
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return fd
                except BlockingIOError:
                    waited = time.monotonic() - start
                    if waited >= wait:
                        raise timed_out(self.lock_file, wait) from None
                    time.sleep(min(poll, wait - waited))
                    poll = min(poll * 2, _LAST_POLL_SECONDS)
        except BaseException:
            os.close(fd)
            raise

    @classmethod
    def _forget_after_fork(cls) -> None:
        """A forked child holds none of its parent's locks: it must take them again, and wait for the parent
        like any other process. Its copies of the parent's descriptors are closed, never unlocked (`flock`
        belongs to the open file, so unlocking here would release the parent's lock)."""
        cls._instances_lock = threading.Lock()
        for found in list(cls._instances.values()):
            fd = getattr(found._held, "fd", None)
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
            found._held = threading.local()

    def _acquire_fallback(self, wait: float) -> None:
        import filelock

        if self._fallback is None:
            self._fallback = filelock.FileLock(self.lock_file, is_singleton=True)
        try:
            self._fallback.acquire(timeout=wait)
        except filelock.Timeout:
            raise timed_out(self.lock_file, wait) from None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=FileLock._forget_after_fork)
