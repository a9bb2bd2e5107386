"""SIGTERM and SIGHUP end a command the way Ctrl-C does.

A CI runner's cancel, `timeout` in a cron line, `docker stop` and systemd all send SIGTERM; a closed
terminal or SSH session sends SIGHUP. By default either kills Python where it stands, so nothing that
cleans up after Ctrl-C ran: a run's `run_shell` command (in its own process group, so signals sent to
ours never reach it) outlived the run, the session log ended without saying why (read as crashed), and
Prefect's temporary server was orphaned. Raised as a KeyboardInterrupt, the signal runs every
`except BaseException` and `finally` that Ctrl-C runs, and the CLI turns it into one line and the exit
code a shell gives a command that signal ended (128 + its number).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
SIGNAL_EXIT_BASE = 128  # a shell's $? for a command a signal ended: 143 for SIGTERM, 129 for SIGHUP


class Stopped(KeyboardInterrupt):
    """A terminating signal arrived: unwinds like Ctrl-C, exits like the signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return SIGNAL_EXIT_BASE + self.signum


def leave_to_default() -> None:
    """For a command whose server handles the signals itself (serve): the default again, where it was ours."""
    if threading.current_thread() is threading.main_thread():
        for sig in TERMINATING_SIGNALS:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                signal.signal(sig, signal.SIG_DFL)


_deferring = 0  # main-thread sections that must not be cut in two (`deferred`)
_pending: int | None = None


@contextmanager
def deferred() -> Iterator[None]:
    """A signal that arrives inside is raised as the section ends, not in the middle of it: for a step
    whose half-done state nothing could clean up (a child process started, not yet known to the code that
    stops it). Only the main thread hears signals, so elsewhere this changes nothing."""
    global _deferring, _pending
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
        if not _deferring and _pending is not None:
            signum, _pending = _pending, None
            raise Stopped(signum)


def _interrupt(signum: int, frame: Any) -> None:
    global _pending
    if _deferring:
        _pending = signum
        return
    for sig in TERMINATING_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    raise Stopped(signum)


def stop_like_ctrl_c() -> None:
    """Install the handlers, for the rest of the process. A second signal is ignored so it cannot cut the
    clean-up short. A signal already ignored stays ignored (`nohup agentuse ...` asked for that), and only
    the main thread may install handlers: a flow run from a worker thread (serve's jobs) leaves them be."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in TERMINATING_SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _interrupt)


@contextmanager
def stopping_like_ctrl_c() -> Iterator[None]:
    """The handlers for the length of a block, on the signals still at their default: for code run outside
    the CLI (which installs them for the whole process), such as a run_shell command started by an embedding
    program. A handler someone else installed is left alone; the default comes back when the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    mine = [sig for sig in TERMINATING_SIGNALS if signal.getsignal(sig) is signal.SIG_DFL]
    for sig in mine:
        signal.signal(sig, _interrupt)
    try:
        yield
    finally:
        for sig in mine:
            signal.signal(sig, signal.SIG_DFL)
