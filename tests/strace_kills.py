"""The agentuse command in a process of its own, killed by strace at one chosen system call (a plain module,
imported by the tests that kill real processes).

strace counts each system call per thread: `inject=rename:signal=SIGKILL:when=3` kills the thread's third
rename before it runs. A kill point named by what the call touches ("the write of the session log's
learning_result line") is found by one traced run that kills nothing (`nth_call`), so a test names the
point it means rather than a count that shifts whenever a command writes one more file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

STRACE = shutil.which("strace")
COMMAND = [sys.executable, "-c", "from agentuse.cli.app import main; main()"]
KILLED = (-9, 128 + 9)  # SIGKILL, as subprocess reports it (or a shell between)


def _strace_works() -> bool:
    """strace is installed and may trace here (a container can forbid ptrace)."""
    return STRACE is not None and subprocess.run([STRACE, "-f", "-qq", "-o", os.devnull, "true"],
                                                 capture_output=True, timeout=30).returncode == 0


needs_strace = pytest.mark.skipif(not _strace_works(), reason="strace cannot trace processes here")


def agentuse(*args: object, before: list[str] = (), check: bool = True) -> subprocess.CompletedProcess:
    """The agentuse command in a process of its own (after `before`: strace and its options)."""
    done = subprocess.run([*before, *COMMAND, *map(str, args)], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=120)
    if check:
        assert done.returncode == 0, (done.stdout, done.stderr)
    return done


def killed_at(syscall: str, n: int) -> list[str]:
    """strace options that SIGKILL the command just before its n-th `syscall` (in the thread making it)."""
    return [STRACE, "-f", "-qq", "-o", os.devnull, "-e", f"trace={syscall}",
            "-e", f"inject={syscall}:signal=SIGKILL:when={n}"]


def killed_at_rename(n: int) -> list[str]:
    """The n-th file the command writes atomically is never in place."""
    return killed_at("rename", n)


def nth_call(tmp_path: Path, syscall: str, *args: object, touching: str, holding: str = "") -> int:
    """Run the command once under strace, killing nothing, and say which `syscall` of its thread (1-based, as
    `killed_at` counts) is the first on a path containing `touching` whose arguments hold `holding`."""
    out = tmp_path / f"strace-{syscall}.txt"
    subprocess.run([STRACE, "-f", "-y", "-qq", "-s", "4096", "-o", str(out), "-e", f"trace={syscall}",
                    *COMMAND, *map(str, args)], capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    seen: dict[str, int] = {}
    for line in out.read_text().splitlines():
        call = re.match(rf"(\d+)\s+{syscall}\((.*)", line)
        if call is None:
            continue
        pid, arguments = call.groups()
        seen[pid] = seen.get(pid, 0) + 1
        if touching in arguments and holding in arguments:
            out.unlink()
            return seen[pid]
    raise AssertionError(f"no {syscall} touching {touching!r} holding {holding!r} in:\n{out.read_text()[-3000:]}")
