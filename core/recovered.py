"""What a crash recovery did, said once to whoever listens: the `agentuse` command prints it as a note.

Recovery runs inside any store read (store.settle), layers below the command that happens to be first after
a crash, and the person whose tidy-up or undo died saw no outcome: without a line they cannot tell whether
the pass happened. core never prints; cli/app.py listens for the length of a command (serve does not: its
pages show the files as they are).
"""

from __future__ import annotations

from collections.abc import Callable

Listener = Callable[[str], None]

_listener: Listener | None = None


def listen(listener: Listener | None) -> Listener | None:
    """Send recovery lines to `listener` from now on; returns the one before, to put back."""
    global _listener
    previous, _listener = _listener, listener
    return previous


def say(line: str) -> None:
    if _listener is not None:
        _listener(line)
