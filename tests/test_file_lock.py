"""core/file_lock.py beyond what tests/test_store.py checks through lock_for: forks, odd filesystems, handles."""

from __future__ import annotations

import errno
import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from agentuse.core import file_lock
from agentuse.core.file_lock import FileLock, LocksUnsupported, LockTimeout

pytestmark = pytest.mark.skipif(file_lock.fcntl is None, reason="flock is POSIX")


def test_a_lock_dies_with_its_process_though_a_forked_child_lives_on(tmp_path):
    """Another thread of the parent held the lock when it forked: the child's copy of that descriptor must
    not keep the lock once the parent is gone (found by review: only the forking thread's was closed)."""
    lock_file = tmp_path / "x.lock"
    parent = textwrap.dedent(f"""
        import os, signal, sys, threading, time
        from agentuse.core.file_lock import FileLock
        lock, held = FileLock({str(lock_file)!r}, 5), threading.Event()
        threading.Thread(target=lambda: (lock.acquire(), held.set(), time.sleep(60)), daemon=True).start()
        held.wait(10)
        child = os.fork()
        if child == 0:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1), os.dup2(devnull, 2)  # let go of the test's pipes: it waits only for the parent
            time.sleep(30)
            os._exit(0)
        print(child, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run([sys.executable, "-c", parent], capture_output=True, text=True, timeout=60)
    child = int(done.stdout.split()[0])
    try:
        FileLock(str(lock_file), 5).acquire(timeout=2).release()  # free, with the child still alive
        os.kill(child, 0)  # (it is)
    finally:
        os.kill(child, signal.SIGKILL)


def test_eacces_is_a_busy_lock_and_an_unlocking_filesystem_is_one_line(tmp_path, monkeypatch):
    calls = []
    real = file_lock.fcntl.flock

    def flaky(fd, op):
        calls.append(op)
        if op & file_lock.fcntl.LOCK_EX and len(calls) < 3:
            raise OSError(errno.EACCES, "Permission denied")
        return real(fd, op)

    monkeypatch.setattr(file_lock.fcntl, "flock", flaky)
    with FileLock(str(tmp_path / "a.lock"), 5):
        assert len(calls) == 3  # waited through two "held" answers

    def unsupported(fd, op):
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(file_lock.fcntl, "flock", unsupported)
    with pytest.raises(LocksUnsupported, match="this filesystem cannot lock files"):
        FileLock(str(tmp_path / "b.lock"), 5).acquire()


def test_a_held_lock_outlives_its_last_reference_and_each_spelling_is_one_lock(tmp_path):
    (tmp_path / "d").mkdir()
    FileLock(str(tmp_path / "d" / "q.lock"), 1).acquire()
    gc.collect()  # the only reference is gone: the instance must stay, still held by this thread
    again = FileLock(str(tmp_path / "d" / ".." / "d" / "q.lock"), 1)
    assert again.is_locked
    again.release()
    elsewhere = threading.Thread(target=lambda: FileLock(str(tmp_path / "d" / "q.lock"), 1).acquire().release())
    elsewhere.start()
    elsewhere.join(10)
    assert not elsewhere.is_alive()


def test_the_timeout_is_the_callers_and_a_negative_one_waits(tmp_path):
    path = str(tmp_path / "t.lock")
    FileLock(path, 5)
    lock = FileLock(path, 0.05)
    assert lock.timeout == 0.05  # the latest caller's default (every caller in agentuse passes the same)
    held, release = threading.Event(), threading.Event()

    def holder():
        with FileLock(path, 5):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(10)
    with pytest.raises(LockTimeout, match="or another task of this one"):
        lock.acquire(timeout=0.05)
    threading.Timer(0.2, release.set).start()
    lock.acquire(timeout=-1)  # as long as it takes: the holder lets go after 0.2 s
    lock.release()
    thread.join(10)
