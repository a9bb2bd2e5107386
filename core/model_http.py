"""One request to a model API over HTTP, and what can go wrong with it: the one owner of the fault table for
every provider (Anthropic, Chat Completions, Bedrock), agent runs and helper calls alike.

    try:
        status, headers, raw = send(client, "POST", url, content=body, deadline=time.monotonic() + 120)
    except CallError as problem:
        problem.transient, problem.reason, problem.retry_after

Transient (worth another attempt): no answer at all (timeout, refused, reset), 408, 409, 429 and every 5xx
(529 is Anthropic's "overloaded"). Anything else is permanent: a bad request, a wrong key, a missing model.

The whole body must arrive by `deadline` (a monotonic time): a server that trickles a byte a second past
every read timeout is cut off too (core/helper/deadline.py says why). It must also be at most
MAX_BODY_BYTES, counted as it arrives, and a redirect is never followed (the key and the prompt would go
to whatever host it names): both end the call with one permanent fault.
"""

from __future__ import annotations

import time
from typing import Any

TRANSIENT_STATUSES = frozenset({408, 409, 429})  # and every status >= 500
# A fault's text is the server's to write: proxies echo the key they were sent ("Received API Key = sk-..."),
# and a hostile endpoint can send megabytes. It is printed, and kept in session logs, as one short line.
ERROR_TEXT_CHARS = 500

# The largest honest answer is far below this: rewrite_block's 8,192 output tokens are ~40 KB of JSON, an
# agent turn of 128k output tokens about 1 MB. A body past it is a broken proxy or a hostile endpoint.
MAX_BODY_BYTES = 16 * 1024 * 1024

# A key shorter than this is masked by its format only: replacing every "abc" would garble the line.
_SECRET_MIN = 4

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


def token_count(value: Any) -> int:
    """A reply's token count; what is not one counts 0 (the answer matters more than its accounting)."""
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError, OverflowError):
        return 0


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms`, or `retry-after` in seconds or as a date), if any."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            value = float(headers.get(name, ""))
        except (TypeError, ValueError):
            value = _http_date_from_now(headers.get(name)) if name == "retry-after" else None
            if value is None:
                continue
        if value >= 0:  # NaN and negative values are no wait at all
            return value * scale
    return None


def _http_date_from_now(text: Any) -> float | None:
    """`Retry-After: Wed, 21 Oct 2026 07:28:00 GMT` (RFC 9110 allows a date) as seconds from now."""
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(str(text or ""))
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(when.timestamp() - time.time(), 0.0)


class CallError(Exception):
    """The call failed. `status` is None when no HTTP answer came (timeout, connection refused)."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None,
                 timed_out: bool = False, transient: bool | None = None, why: str | None = None) -> None:
        super().__init__(_one_short_line(message))
        self.status, self.retry_after, self.timed_out = status, retry_after, timed_out
        self._transient, self._why = transient, why  # None: judged by the status
        self._message = message

    def masking(self, *secrets: str | None) -> "CallError":
        """This fault with the credentials the client sent masked wherever the server's text echoes them:
        redaction knows credential formats, and a local server's key ('local-dev-key-42') has none."""
        message = self._message
        for secret in sorted({s for s in secrets if s and len(s) >= _SECRET_MIN}, key=len, reverse=True):
            message = message.replace(secret, "***")
        if message != self._message:
            self._message = message
            self.args = (_one_short_line(message),)
        return self

    @property
    def transient(self) -> bool:
        return is_transient(self.status) if self._transient is None else self._transient

    @property
    def reason(self) -> str:
        return self._why or reason(self.status, timed_out=self.timed_out)

    def helper_error(self, operation: str, text: str):
        """The helper protocol's fault for this failure: transient (with the server's retry-after) or not."""
        from agentuse.core.errors import PermanentHelperError, TransientHelperError

        if self.transient:
            return TransientHelperError(text, operation=operation, status=self.status, reason=self.reason,
                                        retry_after=self.retry_after)
        return PermanentHelperError(text, operation=operation, status=self.status)


def at_url(status: int, url: Any) -> str:
    """' at <url>' for a 404 or 405, whose body rarely says more than 'Not Found': the URL shows a base URL
    with a path too many or too few (`/v1/v1/messages`, `/chat/completions` without `/v1`)."""
    return f" at {url}" if status in (404, 405) and url else ""


def too_deep() -> CallError:
    """A body nested deeper than the JSON parser follows (it raises RecursionError, not ValueError): no
    answer an endpoint honestly sends, and another try is sent the same. A fault, never a traceback."""
    return CallError("the API sent a body nested deeper than the JSON parser follows", transient=False)


def garbled(message: str) -> CallError:
    """A 200 whose body is no answer (not JSON, not the API's shape): a broken hop (a proxy, a captive
    portal, a truncated body), worth another try. The retry line says 'model answered garbage'."""
    return CallError(message, transient=True, why="answered garbage")


def too_large() -> CallError:
    """A body past MAX_BODY_BYTES: not retried, the same server would send it again."""
    return CallError(f"the API sent a response larger than {MAX_BODY_BYTES // 2**20} MB, which no model answer "
                     "is (a proxy or the endpoint is at fault)", transient=False)


def redirected(status: int, location: str | None) -> CallError:
    """A 3xx: never followed, so the key and the prompt reach only the configured endpoint."""
    return CallError(f"the API answered {status}, a redirect to {location or '(no location)'}: agentuse does not "
                     "follow redirects, which would send the key and the prompt there; set the provider's base URL "
                     "to the address that answers", status=status, transient=False)


def check_headers(status: int, headers: Any) -> None:
    """What the status line and headers already rule out, before any of the body is read."""
    if 300 <= status < 400:
        raise redirected(status, headers.get("location"))
    try:
        declared = int(headers.get("content-length") or 0)
    except ValueError:
        declared = 0
    if declared > MAX_BODY_BYTES:
        raise too_large()


def unreachable(url: Any, problem: BaseException) -> CallError:
    """No whole answer: the connection failed, or closed with the answer half sent (a stream cut off)."""
    if type(problem).__name__ == "RemoteProtocolError":  # httpx's and httpx2's own name for it
        return CallError(f"the connection to {url} closed before the answer was complete: {problem}")
    return CallError(f"could not reach {url}: {problem}")


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
    if isinstance(exc.__cause__, CallError):  # raised inside the SDK's send (anthropic_client's response hook)
        return exc.__cause__
    if isinstance(exc, sdk.APIConnectionError):  # its own text is 'Connection error.': the cause says what
        url = getattr(getattr(exc, "request", None), "url", None) or "the API"
        return unreachable(url, exc.__cause__ or exc)
    if isinstance(exc, sdk.APIStatusError):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) or {}
        url = getattr(getattr(response, "request", None), "url", None)
        return CallError(f"the API answered {exc.status_code}{at_url(exc.status_code, url)}: {_api_message(exc)}",
                         status=exc.status_code,
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
    """(status, headers, body) of one request on an `httpx.Client`; no answer, a body that did not
    arrive by `deadline`, one larger than MAX_BODY_BYTES or a redirect raises `CallError`. Any other status
    comes back: the caller reads its own error body."""
    import httpx  # lazily: only commands that call a model pay for it

    try:
        with client.stream(method, url, content=content, json=json, headers=headers,
                           timeout=timeout or httpx.USE_CLIENT_DEFAULT) as response:
            check_headers(response.status_code, response.headers)
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                if deadline is not None and time.monotonic() > deadline:
                    raise CallError("the response body did not arrive in time", timed_out=True)
                size += len(chunk)
                if size > MAX_BODY_BYTES:
                    raise too_large()
                chunks.append(chunk)
            return response.status_code, response.headers, b"".join(chunks)
    except httpx.TimeoutException as problem:
        raise CallError(f"the call timed out ({type(problem).__name__})", timed_out=True) from None
    except httpx.HTTPError as problem:  # refused, reset, DNS, or the answer cut off
        raise unreachable(url, problem) from None
