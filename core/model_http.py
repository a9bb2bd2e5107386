"""One request to a model API over HTTP, and what can go wrong with it: the one owner of the fault table for
every provider (Anthropic, Chat Completions, Bedrock), agent runs and helper calls alike.

    try:
        status, headers, raw = send(client, "POST", url, content=body, deadline=time.monotonic() + 120)
    except CallError as problem:
        problem.transient, problem.reason, problem.retry_after

Transient (worth another attempt): no answer at all (timeout, refused, reset), 408, 409, 429 and every 5xx
(529 is Anthropic's "overloaded"). Anything else is permanent: a bad request, a wrong key, a missing model.

The whole body must arrive by `deadline` (a monotonic time): a server that trickles a byte a second past
every read timeout is cut off too (core/helper/deadline.py says why).
"""

from __future__ import annotations

import time
from typing import Any

TRANSIENT_STATUSES = frozenset({408, 409, 429})  # and every status >= 500
# A fault's text is the server's to write: proxies echo the key they were sent ("Received API Key = sk-..."),
# and a hostile endpoint can send megabytes. It is printed, and kept in session logs, as one short line.
ERROR_TEXT_CHARS = 500

# Short names of transient faults, for the one line a retry prints ("model overloaded, retrying in ...").
_REASONS = {529: "overloaded", 503: "overloaded", 429: "rate-limited", 408: "timed out", 409: "busy (409)"}


def is_transient(status: int | None) -> bool:
    """`None` is no HTTP answer at all (a timeout, a refused connection): always worth another attempt."""
    return status is None or status in TRANSIENT_STATUSES or status >= 500


def reason(status: int | None, *, timed_out: bool = False) -> str:
    if status is None:
        return "timed out" if timed_out else "unreachable"
    return _REASONS.get(status, f"failed ({status})")


def auth_hint(status: int | None, variable: str | None) -> str:
    """What to append to a refused call's message: the variable (or credential source) to check."""
    return f" (check {variable})" if status in (401, 403) and variable else ""


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms`, or `retry-after` in seconds), if any."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            value = float(headers.get(name, ""))
        except (TypeError, ValueError):
            continue
        if value >= 0:
            return value * scale
    return None


class CallError(Exception):
    """The call failed. `status` is None when no HTTP answer came (timeout, connection refused)."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None,
                 timed_out: bool = False) -> None:
        super().__init__(_one_short_line(message))
        self.status, self.retry_after, self.timed_out = status, retry_after, timed_out

    @property
    def transient(self) -> bool:
        return is_transient(self.status)

    @property
    def reason(self) -> str:
        return reason(self.status, timed_out=self.timed_out)

    def helper_error(self, operation: str, text: str):
        """The helper protocol's fault for this failure: transient (with the server's retry-after) or not."""
        from agentuse.core.errors import PermanentHelperError, TransientHelperError

        if self.transient:
            return TransientHelperError(text, operation=operation, status=self.status, reason=self.reason,
                                        retry_after=self.retry_after)
        return PermanentHelperError(text, operation=operation, status=self.status)


def _one_short_line(message: str) -> str:
    from agentuse.core.redact import redact_text

    # Redacted before it is cut, so a key the cut would split is still recognised whole.
    head = redact_text(" ".join(message[:4 * ERROR_TEXT_CHARS].split()))
    if len(head) <= ERROR_TEXT_CHARS and len(message) <= 4 * ERROR_TEXT_CHARS:
        return head
    return f"{head[:ERROR_TEXT_CHARS]} [... {max(len(message) - ERROR_TEXT_CHARS, 1):,} more characters]"


def from_anthropic(sdk: Any, exc: Exception) -> CallError | None:
    """The `CallError` for an exception of the anthropic SDK (`sdk` is the imported module); None for any
    other exception (a programming error, to surface as it is)."""
    if isinstance(exc, sdk.APITimeoutError):
        return CallError("the call timed out", timed_out=True)
    if isinstance(exc, sdk.APIConnectionError):
        return CallError(f"could not reach the API: {exc}")
    if isinstance(exc, sdk.APIStatusError):
        headers = getattr(getattr(exc, "response", None), "headers", None) or {}
        return CallError(f"the API answered {exc.status_code}: {_api_message(exc)}", status=exc.status_code,
                         retry_after=retry_after_seconds(headers))
    return None


def _api_message(problem: Exception) -> str:
    body = getattr(problem, "body", None)
    if isinstance(body, dict):
        detail = body.get("error") if isinstance(body.get("error"), dict) else body
        if isinstance(detail, dict) and detail.get("message"):
            return str(detail["message"])
    return getattr(problem, "api_message", None) or str(problem)


def send(client: Any, method: str, url: str, *, content: bytes | None = None, json: Any = None,
         headers: dict[str, str] | None = None, timeout: float | None = None,
         deadline: float | None = None) -> tuple[int, Any, bytes]:
    """(status, headers, body) of one request on an `httpx.Client`; no answer, or a body that did not
    arrive by `deadline`, raises `CallError`. Any status comes back: the caller reads its own error body."""
    import httpx  # lazily: only commands that call a model pay for it

    try:
        with client.stream(method, url, content=content, json=json, headers=headers,
                           timeout=timeout or httpx.USE_CLIENT_DEFAULT) as response:
            chunks = []
            for chunk in response.iter_bytes():
                if deadline is not None and time.monotonic() > deadline:
                    raise CallError("the response body did not arrive in time", timed_out=True)
                chunks.append(chunk)
            return response.status_code, response.headers, b"".join(chunks)
    except httpx.TimeoutException as problem:
        raise CallError(f"the call timed out ({type(problem).__name__})", timed_out=True) from None
    except httpx.HTTPError as problem:  # refused, reset, DNS: no answer at all
        raise CallError(f"could not reach {url}: {problem}") from None
