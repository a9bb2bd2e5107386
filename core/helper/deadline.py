"""How long model work may take: one request, one helper call (every attempt and back-off), one command.

    AGENTUSE_HELPER_TIMEOUT   one request to the model, the whole body included             (120 s)
    AGENTUSE_HELPER_DEADLINE  one helper call: all its attempts and the back-off between them (240 s)
    AGENTUSE_MODEL_BUDGET     all helper calls of one command together                      (600 s)

A server that never answers, or one that trickles a byte a second, must not hold a command for ever:
the SDK's own timeout is per read, so a trickle that keeps every read busy never trips it. Each request
therefore runs against a wall-clock limit, the smallest of the three that remain. When the request's own
timeout is what ran out, the fault is transient (another attempt may do better); when the call's deadline
or the command's budget ran out, it is `DeadlineError`, permanent, and the step handles it as it handles
any model fault (fail open for human corrections, closed for free-form capture, tidy keeps the originals).

The call deadline is opened by the retry policy around all attempts (`call_scope`); the command budget
belongs to the helper a command resolves (one per command), so a long-lived process (`agentuse serve`)
gives every command its own.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from pydantic import BaseModel, Field

from agentuse.core.helper.protocol import PermanentHelperError

TIMEOUT_VARIABLE = "AGENTUSE_HELPER_TIMEOUT"
CALL_DEADLINE_VARIABLE = "AGENTUSE_HELPER_DEADLINE"
BUDGET_VARIABLE = "AGENTUSE_MODEL_BUDGET"

Clock = Callable[[], float]


class Limits(BaseModel):
    """The three limits, in seconds (every one > 0)."""

    request: float = Field(120.0, gt=0, description=f"{TIMEOUT_VARIABLE}: one request, body included")
    call: float = Field(240.0, gt=0, description=f"{CALL_DEADLINE_VARIABLE}: one helper call, all attempts")
    command: float = Field(600.0, gt=0, description=f"{BUDGET_VARIABLE}: all helper calls of one command")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Limits":
        env = os.environ if env is None else env
        values = {}
        for field, variable in (("request", TIMEOUT_VARIABLE), ("call", CALL_DEADLINE_VARIABLE),
                                ("command", BUDGET_VARIABLE)):
            raw = (env.get(variable) or "").strip()
            if raw:
                values[field] = _seconds(variable, raw)
        return cls(**values)


def _seconds(variable: str, raw: str) -> float:
    from agentuse.core.errors import AgentuseError

    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise AgentuseError(f"{variable}={raw!r} is not a number of seconds above 0: set it to e.g. 120, or unset it")
    return value


class DeadlineError(PermanentHelperError):
    """The model did not answer in time: the call's deadline or the command's budget ran out."""


def too_late(operation: str, variable: str, seconds: float) -> DeadlineError:
    return DeadlineError(f"{operation}: the model did not answer in time ({variable}={seconds:g} s)",
                         operation=operation)


class Budget:
    """The command's budget for model work: starts when the command's helper is made."""

    def __init__(self, seconds: float, *, clock: Clock = time.monotonic) -> None:
        self.seconds, self._clock = seconds, clock
        self._ends = clock() + seconds

    def remaining(self) -> float:
        return self._ends - self._clock()


# The call deadline of the helper call running on this thread (attempts run on the thread that retries them).
_local = threading.local()


class _Scope:
    """A call's deadline. Its clock starts at the call's first request, not when the scope opens: building
    the client (importing the SDK, ~1 s) is not the model's time."""

    def __init__(self, seconds: float, clock: Clock, ends: float | None = None) -> None:
        self.seconds, self.clock, self.ends = seconds, clock, ends

    def remaining(self) -> float:
        if self.ends is None:
            self.ends = self.clock() + self.seconds
        return self.ends - self.clock()


@contextmanager
def call_scope(seconds: float, *, clock: Clock = time.monotonic, ends: float | None = None) -> Iterator[None]:
    """Every attempt of one helper call, and the back-off between them, inside `seconds` from its first
    request (or by `ends`, on `clock`, when given). A scope opened inside another replaces it for its block."""
    previous = getattr(_local, "scope", None)
    _local.scope = _Scope(seconds, clock, ends)
    try:
        yield
    finally:
        _local.scope = previous


def call_remaining() -> tuple[float, float] | None:
    """(seconds left, the deadline's length) of the current call scope, or None outside one."""
    scope = getattr(_local, "scope", None)
    return None if scope is None else (scope.remaining(), scope.seconds)


def request_limit(limits: Limits, budget: Budget, operation: str) -> tuple[float, DeadlineError | None]:
    """How long the next request may take, and the error to raise if that runs out (None: the request's own
    timeout, a transient fault). Raises `DeadlineError` at once when no time is left at all."""
    candidates = [(limits.request, None),
                  (budget.remaining(), too_late(operation, BUDGET_VARIABLE, budget.seconds))]
    scope = call_remaining()
    if scope is not None:
        candidates.append((scope[0], too_late(operation, CALL_DEADLINE_VARIABLE, scope[1])))
    seconds, expired = min(candidates, key=lambda c: c[0])
    if seconds <= 0:
        raise expired or too_late(operation, TIMEOUT_VARIABLE, limits.request)
    return seconds, expired
