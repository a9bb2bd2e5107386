"""A Helper whose answers are scripted by the test: a function per operation, from request to answer.

Every call is recorded with its operation, request, thread and start/end instants (a monotonic clock),
so tests can count model calls per pass and show that the calls of a pass overlapped in time. `pause`
holds each call open briefly so overlap is observable; tests assert the overlap, never a duration.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentuse.core.helper import protocol as p


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


@dataclass
class ScriptedHelper:
    """Pass `plan_groups=lambda req: PlanAnswer(...)` etc.; an operation left unscripted fails the test."""

    extract: Callable[[p.ExtractRequest], p.ExtractAnswer] = field(default_factory=lambda: _unset("extract"))
    vet: Callable[[p.VetRequest], p.VetAnswer] = field(default_factory=lambda: _unset("vet"))
    ground: Callable[[p.GroundRequest], p.GroundAnswer] = field(default_factory=lambda: _unset("ground"))
    reconcile: Callable[[p.ReconcileRequest], p.ReconcileAnswer] = field(default_factory=lambda: _unset("reconcile"))
    plan_groups: Callable[[p.PlanRequest], p.PlanAnswer] = field(default_factory=lambda: _unset("plan_groups"))
    rewrite_group: Callable[[p.RewriteRequest], p.RewriteAnswer] = field(
        default_factory=lambda: _unset("rewrite_group"))
    audit: Callable[[p.AuditRequest], p.AuditAnswer] = field(default_factory=lambda: _unset("audit"))
    rewrite_block: Callable[[p.BlockRequest], p.BlockAnswer] = field(default_factory=lambda: _unset("rewrite_block"))
    pause: float = 0.0
    name: str = "scripted"
    usage: p.Usage = field(default_factory=p.Usage)
    calls: list[Call] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __getattribute__(self, attribute: str) -> Any:
        value = object.__getattribute__(self, attribute)
        if attribute in _OPERATIONS:
            return lambda request: object.__getattribute__(self, "_record")(attribute, value, request)
        return value

    def _record(self, operation: str, answer: Callable[[Any], Any], request: Any) -> Any:
        call = Call(operation=operation, request=request, start=time.monotonic(),
                    thread=threading.current_thread().name)
        try:
            if self.pause:
                time.sleep(self.pause)
            return answer(request)
        finally:
            call.end = time.monotonic()
            with self._lock:
                self.calls.append(call)
                self.usage.add(0, 0)

    def ops(self, operation: str) -> list[Call]:
        return [c for c in self.calls if c.operation == operation]


_OPERATIONS = frozenset({"extract", "vet", "ground", "reconcile", "plan_groups", "rewrite_group", "audit",
                         "rewrite_block"})


def keep_everything(_request: p.PlanRequest) -> p.PlanAnswer:
    return p.PlanAnswer(moves=[])


def nothing_missing(_request: p.AuditRequest) -> p.AuditAnswer:
    return p.AuditAnswer(missing=[])


def block_unchanged(request: p.BlockRequest) -> p.BlockAnswer:
    return p.BlockAnswer(rules=[p.BlockRule(category=r.category, text=r.text, covers=[r.id]) for r in request.rules])


def all_pass(request: p.VetRequest) -> p.VetAnswer:
    return p.VetAnswer(verdicts=[p.VetVerdict(id=c.id, verdict="pass") for c in request.candidates])
