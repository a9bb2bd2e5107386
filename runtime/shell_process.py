"""What a `run_shell` command starts ends with it: the command's processes are found and ended when it
returns, times out or is interrupted, so nothing a model starts (`server &`, `nohup`, `setsid`) outlives the
tool call, let alone the run.

The shell runs in a session and process group of its own (`start_new_session`), so a terminal's Ctrl-C does
not reach it and `killpg` reaches everything started with `&` or `nohup`. `setsid` leaves the group; on
Linux such a process is still found by the marker variable every process of the command inherits
(`/proc/<pid>/environ`), unless it cleared its environment (`env -i`) or exec'd with another one. That one
is beyond reach (a child subreaper, PR_SET_CHILD_SUBREAPER, would keep it as agentuse's child, but it
applies to the whole agentuse process, Prefect's own children included): the tool stops reading the output
it may hold open instead of waiting for it.

Ending is SIGTERM to every process found, then SIGKILL to those still running after KILL_GRACE_SECONDS.
Because the command has a session of its own, a signal that ends agentuse (SIGTERM from a cancelled job,
SIGHUP from a closed terminal) does not reach it: while a command runs, those end agentuse the way Ctrl-C
does (`signals_interrupt`), so the command is ended on the way out and the session log says so.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

MARKER_VARIABLE = "AGENTUSE_COMMAND"
KILL_GRACE_SECONDS = 2.0  # a process given SIGTERM may clean up this long before SIGKILL
_POLL_SECONDS = 0.02
_PROC = Path("/proc")
_ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


@contextmanager
def signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP raise KeyboardInterrupt inside the block, where by default they would kill agentuse
    at once; a handler someone else installed (flows/runner.py's, under Prefect) is left alone, and only the
    main thread can install one. The first signal ignores the next until the block ends, so the command's
    ending is not cut short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    mine = [sig for sig in _ENDING_SIGNALS if signal.getsignal(sig) is signal.SIG_DFL]

    def interrupt(signum: int, frame: object) -> None:
        for sig in mine:
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")

    for sig in mine:
        signal.signal(sig, interrupt)
    try:
        yield
    finally:
        for sig in mine:
            signal.signal(sig, signal.SIG_DFL)


def start(command: str, *, cwd: Path, env: Mapping[str, str]) -> tuple[subprocess.Popen, str]:
    """The command started under `sh -c`, output and errors on one pipe; and its marker."""
    marker = secrets.token_hex(8)
    process = subprocess.Popen(
        command, shell=True, cwd=cwd, env={**env, MARKER_VARIABLE: marker},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    return process, marker


def _running(stat: str) -> tuple[int, bool] | None:
    """(process group, not a zombie) from /proc/<pid>/stat."""
    fields = stat.rsplit(")", 1)[1].split()  # state, ppid, pgrp, ...
    return int(fields[2]), fields[0] != "Z"


def _found(pgid: int, marker: str) -> list[int]:
    """The running processes of the command: its group, and (Linux) those carrying its marker."""
    if not _PROC.is_dir():
        return []
    needle = f"{MARKER_VARIABLE}={marker}\0".encode()
    own, found = os.getpid(), []
    for entry in os.listdir(_PROC):
        if not entry.isdigit() or int(entry) == own:
            continue
        try:
            group, alive = _running((_PROC / entry / "stat").read_text())
            if alive and (group == pgid or needle in (_PROC / entry / "environ").read_bytes()):
                found.append(int(entry))
        except (OSError, ValueError, IndexError):  # gone meanwhile, or another user's
            continue
    return found


def _signal(pgid: int, pids: list[int], signum: int) -> None:
    for send, target in [(os.killpg, pgid), *((os.kill, pid) for pid in pids)]:
        try:
            send(target, signum)
        except (ProcessLookupError, PermissionError):
            pass


def _group_left(pgid: int) -> bool:
    """Without /proc: whether the group still has a member (a zombie one counts, so this errs to SIGKILL)."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def end(process: subprocess.Popen, marker: str) -> None:
    """End every process the command started (and the shell, if it still runs), then reap the shell."""
    pgid = process.pid  # the session leader's pid is its group's id, while the group has any member
    procfs = _PROC.is_dir()
    left = _found(pgid, marker) if procfs else None
    if left or (not procfs and _group_left(pgid)) or process.poll() is None:
        _signal(pgid, left or [], signal.SIGTERM)
        ends = time.monotonic() + KILL_GRACE_SECONDS
        while time.monotonic() < ends:
            left = _found(pgid, marker) if procfs else None
            if not (left or (not procfs and _group_left(pgid))) and process.poll() is not None:
                break
            time.sleep(_POLL_SECONDS)
        else:
            _signal(pgid, (_found(pgid, marker) if procfs else []), signal.SIGKILL)
    process.wait()
