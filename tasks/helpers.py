"""The helper a flow's model steps use, resolved inside the flow from its agent file (never a parameter).

A pipeline opens a `scope` for its agent; model steps take `current()`. The helper is built on first use,
so a capture that needs no model (tool-errors only, nothing to re-vet) never imports a provider SDK nor
announces the offline evaluator. The scope is a context variable: it follows the flow into its steps, in
the inline runner's threads and in Prefect's task threads alike, and two flows running at once in one
process (the web UI) each see their own.

An entry point may pass a helper (tests, a scripted model) and an announcer for the offline notice;
both reach the scope through `given`, set by the runner around the call.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

Announce = Callable[[str], None]


class _Scope:
    def __init__(self, agent_path: str, given: Any, announce: Announce) -> None:
        self.agent_path = agent_path
        self.helper = given
        self.announce = announce
        self.lock = threading.Lock()

    def get(self) -> Any:
        with self.lock:
            if self.helper is None:
                from agentuse.core.agent_file import load_agent
                from agentuse.core.helper.factory import resolve_helper  # the SDK only when needed

                self.helper = resolve_helper(load_agent(Path(self.agent_path)).helper_model, announce=self.announce)
            return self.helper


_SCOPE: ContextVar[_Scope | None] = ContextVar("agentuse_helper_scope", default=None)
# What the caller of an entry point hands the flow: a helper to use instead of the agent's, an announcer.
_GIVEN: ContextVar[tuple[Any, Announce | None]] = ContextVar("agentuse_helper_given", default=(None, None))


def _stderr(message: str) -> None:
    sys.stderr.write(message + "\n")


def announcer() -> Announce:
    """One per command: a command that runs several flows (`sessions resume --remember` saves the note,
    then captures the run) passes the same announcer to each, so the offline notice prints once."""
    from agentuse.core.helper.factory import once

    return once(_stderr)


@contextmanager
def given(helper: Any = None, announce: Announce | None = None) -> Iterator[None]:
    token = _GIVEN.set((helper, announce))
    try:
        yield
    finally:
        _GIVEN.reset(token)


@contextmanager
def scope(agent_path: str) -> Iterator[None]:
    helper, announce = _GIVEN.get()
    outer = _SCOPE.get()
    if helper is None and outer is not None and outer.agent_path == agent_path:
        helper = outer.helper  # a subflow for the same agent keeps its parent's helper
    token = _SCOPE.set(_Scope(agent_path, helper, announce or announcer()))
    try:
        yield
    finally:
        _SCOPE.reset(token)


def _scope() -> _Scope:
    found = _SCOPE.get()
    if found is None:
        raise RuntimeError("a model step ran outside a pipeline: no agent to resolve its helper from")
    return found


def current() -> Any:
    """The helper of the innermost flow; outside any flow (a step run on its own), an error."""
    return _scope().get()


def vets_offline() -> bool:
    """Whether the current flow's vets are the embedded offline evaluator's: a rule it passes is stored
    provisional (`vet:offline`), and provisional rules wait for a real model to be re-vetted. Answered from
    the agent's configuration when no helper is built yet, so asking builds none and prints no notice."""
    from agentuse.core.helper.factory import OFFLINE, runs_offline

    found = _scope()
    with found.lock:
        built = found.helper
    if built is None:
        from agentuse.core.agent_file import load_agent

        known = runs_offline(load_agent(Path(found.agent_path)).helper_model)
        if known is not None:
            return known
        built = found.get()
    return getattr(built, "name", None) == OFFLINE


def answers_in_process() -> bool:
    """The current flow's helper computes its answers in this process (the offline evaluator declares
    `in_process`): nothing to wait on, so its calls gain nothing from running side by side."""
    return bool(getattr(current(), "in_process", False))


def calls() -> int:
    """Model calls made so far by the current flow's helper (0 while none has been resolved)."""
    found = _SCOPE.get()
    helper = found.helper if found is not None else None
    return helper.usage.calls if helper is not None else 0
