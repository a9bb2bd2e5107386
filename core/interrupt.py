"""SIGTERM and SIGHUP ending a command the way Ctrl-C does: a KeyboardInterrupt that unwinds, so what the
command started (a temporary Prefect server, a run_shell command in a session of its own) is ended on the
way out. By default Python dies at once on either, running no `finally` and no atexit hook.

Only the main thread may install a handler. The first signal ignores the next ones, so the shutdown it
starts is not cut short.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable

TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def interrupt_on(signals: Iterable[signal.Signals] = TERMINATING_SIGNALS) -> list[signal.Signals]:
    """Make `signals` raise KeyboardInterrupt; returns those it installed for (none off the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return []
    chosen = list(signals)

    def interrupt(signum: int, frame: object) -> None:
        for sig in chosen:
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")

    for sig in chosen:
        signal.signal(sig, interrupt)
    return chosen
