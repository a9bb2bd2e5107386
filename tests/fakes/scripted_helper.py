"""A Helper whose answers are scripted by the test: a function per operation, from request to answer.

Every call is recorded with its operation, request, thread and start/end instants (a monotonic clock),
so tests can count model calls per pass and show that the calls of a pass overlapped in time. `pause`
holds each call open briefly so overlap is observable; tests assert the overlap, never a duration.
"""

from __future__ import annotations

import threading
import time
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


def _unset(operation: str) -> Callable[[Any], Any]:
    def fail(_request: Any) -> Any:
        raise AssertionError(f"the test did not script {operation}")

    return fail


class ScriptedHelper(OperationsMixin):
    """`ScriptedHelper(plan_groups=lambda req: PlanAnswer(...), ...)`; an operation left unscripted fails.

    A plain class on purpose: Prefect walks and rebuilds dataclass and pydantic task inputs, and a
    rebuilt copy of a recording helper would record every call once per copy."""

    name = "scripted"

    def __init__(self, *, pause: float = 0.0, **answers: Callable[[Any], Any]) -> None:
        unknown = set(answers) - set(OPERATIONS)
        if unknown:
            raise TypeError(f"not a helper operation: {', '.join(sorted(unknown))}")
        self._answers = {op: answers.get(op) or _unset(op) for op in OPERATIONS}
        self.pause = pause
        self.usage = p.HelperUsage()
        self.calls: list[Call] = []
        self._lock = threading.Lock()

    def _record(self, operation: str, request: Any) -> Any:
        call = Call(operation=operation, request=request, start=time.monotonic(),
                    thread=threading.current_thread().name)
        try:
            if self.pause:
                time.sleep(self.pause)
            return self._answers[operation](request)
        finally:
            call.end = time.monotonic()
            with self._lock:
                self.calls.append(call)
                self.usage.add(0, 0)

    def _ask(self, operation: Operation, request: Any) -> Any:  # every protocol method (OperationsMixin)
        return self._record(operation.name, request)

    def ops(self, operation: str) -> list[Call]:
        return [c for c in self.calls if c.operation == operation]


def keep_everything(_request: p.PlanRequest) -> p.PlanAnswer:
    return p.PlanAnswer(moves=[])


def nothing_missing(_request: p.AuditRequest) -> p.AuditAnswer:
    return p.AuditAnswer(missing=[])


def block_unchanged(request: p.BlockRequest) -> p.BlockAnswer:
    return p.BlockAnswer(rules=[p.RewrittenRule(category=r.category, text=r.text, covers=[r.id]) for r in request.rules])


def all_pass(request: p.VetRequest) -> p.VetAnswer:
    return p.VetAnswer(verdicts=[p.VetVerdict(id=c.id, verdict="pass") for c in request.candidates])
