"""The one scripted Helper of the tests: answers scripted per operation, every call recorded.

    ScriptedHelper(vet=passing, plan_groups=keep_everything)        # a function answers every call
    ScriptedHelper(vet=[passing, transient(), VetAnswer(...)])   # a list answers one call each, in order
    helper.script("ground", grounded("..."))                      # more entries for the next calls

A queue entry is an answer model, an exception (raised: a model fault), or a function from the request to
either. An operation left unscripted, or whose queue ran out, fails the test. Every call is recorded with
its operation, request, thread and start/end instants (a monotonic clock): `calls` in order, `ops(name)`,
`count(name)`, `requests[name]`; tests can count model calls per pass and show that the calls of a pass
overlapped in time. `pause` holds each call open briefly so overlap is observable; tests assert the
overlap, never a duration. `usage` counts every call as a real helper does (a fault counts: it was a call).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentuse.core.helper import protocol as p
from agentuse.core.helper.operations import OPERATIONS, Operation, OperationsMixin


@dataclass
class Call:
    operation: str
    request: Any
    start: float
    end: float = 0.0
    thread: str = ""


class ScriptedHelper(OperationsMixin):
    """A plain class on purpose: Prefect walks and rebuilds dataclass and pydantic task inputs, and a
    rebuilt copy of a recording helper would record every call once per copy."""

    name = "scripted"

    def __init__(self, *, pause: float = 0.0, **scripts: Callable[[Any], Any] | list[Any]) -> None:
        unknown = set(scripts) - set(OPERATIONS)
        if unknown:
            raise TypeError(f"not a helper operation: {', '.join(sorted(unknown))}")
        self._every: dict[str, Callable[[Any], Any]] = {}
        self._queues: dict[str, deque] = {op: deque() for op in OPERATIONS}
        for operation, script in scripts.items():
            if callable(script):
                self._every[operation] = script
            elif isinstance(script, (list, tuple)):
                self._queues[operation].extend(script)
            else:
                raise TypeError(f"{operation}: script a function, or a list of answers, faults and functions")
        self.pause = pause
        self.usage = p.HelperUsage()
        self.calls: list[Call] = []
        self._lock = threading.Lock()

    def script(self, operation: str, *entries: Any) -> "ScriptedHelper":
        with self._lock:
            self._queues[operation].extend(entries)
        return self

    def ops(self, operation: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.operation == operation]

    def count(self, operation: str) -> int:
        return len(self.ops(operation))

    @property
    def requests(self) -> dict[str, list[Any]]:
        """The requests of every call so far, by operation."""
        with self._lock:
            out: dict[str, list[Any]] = {op: [] for op in OPERATIONS}
            for call in self.calls:
                out[call.operation].append(call.request)
            return out

    def _next(self, operation: str) -> Any:
        with self._lock:
            if self._queues[operation]:
                return self._queues[operation].popleft()
            done = sum(1 for c in self.calls if c.operation == operation)
        if operation in self._every:
            return self._every[operation]
        raise AssertionError(f"ScriptedHelper: no {operation} answer scripted (call {done + 1})")

    def _ask(self, operation: Operation, request: Any) -> Any:  # every protocol method (OperationsMixin)
        call = Call(operation=operation.name, request=request, start=time.monotonic(),
                    thread=threading.current_thread().name)
        try:
            if self.pause:
                time.sleep(self.pause)
            entry = self._next(operation.name)
            if callable(entry) and not isinstance(entry, type):
                entry = entry(request)
            if isinstance(entry, BaseException):
                raise entry
            return entry
        finally:
            call.end = time.monotonic()
            with self._lock:
                self.calls.append(call)
            self.usage.add(10, 5)


# ---------------------------------------------------------------- answers


def keep_everything(_request: p.PlanRequest) -> p.PlanAnswer:
    return p.PlanAnswer(moves=[])


def nothing_missing(_request: p.AuditRequest) -> p.AuditAnswer:
    return p.AuditAnswer(missing=[])


def block_unchanged(request: p.BlockRequest) -> p.BlockAnswer:
    return p.BlockAnswer(rules=[p.RewrittenRule(category=r.category, text=r.text, covers=[r.id]) for r in request.rules])


def verdicts(request: p.VetRequest, *by_text: tuple[str, str, str], default: str = "pass") -> p.VetAnswer:
    """A vet answer for every candidate: (text fragment, verdict, detail) entries pick the verdict."""
    out = []
    for c in request.candidates:
        chosen = next(((v, d) for frag, v, d in by_text if frag in c.text), (default, ""))
        out.append(p.VetVerdict(id=c.id, verdict=chosen[0], detail=chosen[1]))
    return p.VetAnswer(verdicts=out)


def passing(request: p.VetRequest) -> p.VetAnswer:
    return verdicts(request)


def drafts(*titles: str) -> p.ExtractAnswer:
    return p.ExtractAnswer(candidates=[p.Draft(title=t, body=t) for t in titles])


def transient(op: str = "vet") -> p.TransientHelperError:
    return p.TransientHelperError(f"{op}: the model API answered 529: Overloaded", operation=op, status=529)


def permanent(op: str = "vet") -> p.InvalidAnswerError:
    return p.InvalidAnswerError(f"{op}: the model's answer does not validate", operation=op)
