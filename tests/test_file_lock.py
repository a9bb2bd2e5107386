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


@pytest.mark.parametrize("code, says", [(errno.EACCES, "permission denied writing"),
                                        (errno.EROFS, "is on a read-only file system"),
                                        (errno.ELOOP, "is a symbolic link")])
def test_a_lock_file_that_cannot_be_opened_is_one_line_naming_it(tmp_path, monkeypatch, code, says):
    """A state folder the user cannot write to, or mounted read-only, or a link planted at the lock file:
    one line naming the lock file and what to do (found by review: a PermissionError traceback)."""
    from agentuse.core.file_access import FileAccessError

    def refuse(path, *args, **kwargs):
        raise OSError(code, os.strerror(code), path)

    monkeypatch.setattr(file_lock.os, "open", refuse)
    lock_file = str(tmp_path / "x.learnings.md.lock")
    with pytest.raises(FileAccessError) as raised:
        FileLock(lock_file, 5).acquire()
    message = str(raised.value)
    assert lock_file in message and says in message and "\n" not in message


def _without_privilege() -> list[str] | None:
    """A prefix under which permissions apply: none for a normal user; for root, setpriv dropping every
    capability (root otherwise writes into any folder). None when neither is possible here."""
    import shutil

    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    return [setpriv, "--bounding-set=-all", "--inh-caps=-all"] if setpriv else None


def test_a_write_command_in_a_folder_it_cannot_write_says_so_in_one_line(tmp_path):
    prefix = _without_privilege()
    if prefix is None:
        pytest.skip("running as root without setpriv: permissions do not apply")
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nlearning: true\n---\n# A\n\nWrite posts.\n")
    env = {**os.environ, "AGENTUSE_DATA_DIR": str(tmp_path / "state")}
    env.pop("ANTHROPIC_API_KEY", None)
    cli = [sys.executable, "-c", "from agentuse.cli.app import main; main()", "learnings"]
    subprocess.run([*cli, "add", str(agent), "Keep intros short"], check=True, env=env, capture_output=True)
    path = subprocess.run([*cli, str(agent), "--path"], check=True, env=env, capture_output=True, text=True)
    folder = os.path.dirname(path.stdout.strip())
    for name in os.listdir(folder):
        if name.endswith(".lock"):
            os.remove(os.path.join(folder, name))
    before = open(path.stdout.strip(), "rb").read()
    os.chmod(folder, 0o555)
    try:
        done = subprocess.run([*prefix, *cli, "add", str(agent), "Use headers"], env=env, capture_output=True,
                              text=True)
    finally:
        os.chmod(folder, 0o755)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "permission denied writing" in done.stderr
    assert open(path.stdout.strip(), "rb").read() == before
