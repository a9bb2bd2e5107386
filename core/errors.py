"""The one exception family every surface turns into a clear message and a non-zero exit (the CLI catches it
once, in cli/app.py). A model fault is part of it: `HelperError` and its two kinds live here, so code that
only catches one need not import the helper protocol's models."""

from __future__ import annotations


class AgentuseError(Exception):
    """A problem the user can act on. Its message says what is wrong and what to do."""

    exit_code = 1


class HelperError(AgentuseError):
    """A helper call failed. `transient` faults (overloaded, rate limit, timeout, connection) may be
    retried; permanent ones (bad request, auth, an answer that does not validate) may not. Code that
    reports an AgentuseError and moves on must let a HelperError through where a retry or a `Failure`
    depends on it (flows/runner.py, tasks/retry.py catch it first)."""

    transient = False
    http_status = 502  # the web UI: the model behind it failed, not the request

    def __init__(self, message: str, *, operation: str = "", status: int | None = None, reason: str = "failed",
                 retry_after: float | None = None):
        super().__init__(message)
        self.operation = operation
        self.status = status
        self.reason = reason  # a few words for the retry line: "overloaded", "timed out", "unreachable"
        self.retry_after = retry_after  # seconds the server asked for before another attempt (retry-after)


class TransientHelperError(HelperError):
    transient = True


class PermanentHelperError(HelperError):
    transient = False
