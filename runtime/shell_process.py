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
does (core/stop_signals.py, for the whole process under the CLI, for the command alone otherwise), so the
command is ended on the way out and the session log says so.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path


MARKER_VARIABLE = "AGENTUSE_COMMAND"
KILL_GRACE_SECONDS = 2.0  # a process given SIGTERM may clean up this long before SIGKILL
_POLL_SECONDS = 0.02
_PROC = Path("/proc")




class Command:
    """A command started under `sh -c` (output and errors on one pipe) with what finds its processes again."""

    def __init__(self, command: str, *, cwd: Path, env: Mapping[str, str]) -> None:
        self.marker = secrets.token_hex(8)
        self.process = subprocess.Popen(
            command, shell=True, cwd=cwd, env={**env, MARKER_VARIABLE: self.marker},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.pgid = self.process.pid  # a session leader's pid is its group's id while the group has a member
        self._needle = f"{MARKER_VARIABLE}={self.marker}\0".encode()
        stat = _stat(self.process.pid) if _PROC.is_dir() else None
        # Only a process started since the shell can be one of its descendants: the others' environment is
        # not read (a scan reading every one cost 10-20 ms a command).
        self._since = stat[2] if stat else None

    def _found(self) -> list[int]:
        """The running processes of the command: its group, and those carrying its marker."""
        own, found = os.getpid(), []
        for entry in os.listdir(_PROC):
            if not entry.isdigit() or int(entry) == own:
                continue
            stat = _stat(int(entry))
            if stat is None or not stat[1]:
                continue
            if stat[0] == self.pgid or (self._since is not None and stat[2] >= self._since
                                        and self._needle in _read(f"/proc/{entry}/environ")):
                found.append(int(entry))
        return found

    def _left(self) -> list[int] | bool:
        if self._since is None:  # no /proc: whether the group has a member (a zombie counts: errs to SIGKILL)
            try:
                os.killpg(self.pgid, 0)
            except (ProcessLookupError, PermissionError):
                return False
            return True
        return self._found()

    def _signal(self, signum: int, pids: list[int] | bool) -> None:
        for send, target in [(os.killpg, self.pgid), *((os.kill, pid) for pid in pids or [])]:
            try:
                send(target, signum)
            except (ProcessLookupError, PermissionError):
                pass

    def end(self) -> None:
        """End every process the command started (the shell too, if it still runs), then reap the shell."""
        left = self._left()
        if left or self.process.poll() is None:
            self._signal(signal.SIGTERM, left)
            ends = time.monotonic() + KILL_GRACE_SECONDS
            while time.monotonic() < ends:
                left = self._left()
                if not left and self.process.poll() is not None:
                    break
                time.sleep(_POLL_SECONDS)
            else:
                self._signal(signal.SIGKILL, self._left())
        self.process.wait()


def _read(path: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # gone meanwhile, or another user's
        return b""
    try:
        chunks = []
        while chunk := os.read(fd, 65_536):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _stat(pid: int) -> tuple[int, bool, int] | None:
    """(process group, not a zombie, start time in clock ticks) from /proc/<pid>/stat; None if it is gone."""
    fields = _read(f"/proc/{pid}/stat").rpartition(b")")[2].split()  # state, ppid, pgrp, ...
    try:
        return int(fields[2]), fields[0] != b"Z", int(fields[19])
    except (IndexError, ValueError):
        return None
