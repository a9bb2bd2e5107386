"""The anthropic SDK's client as every Anthropic call here makes it, helper calls and agent runs alike.

    client = BoundedAnthropic(anthropic, api_key=..., base_url=..., timeout=120)
    with client.until(time.monotonic() + 120):
        client.messages.create(...)

The SDK's own HTTP client follows redirects and bounds each read, not the body. This one holds its
requests to what core/model_http.py holds every provider's: no redirect is followed (the SDK's default
would send the prompt, and the key where it travels in a header of its own, to whatever host a 3xx names),
and a response hook bounds the whole body by the wall-clock end `until` set and by MAX_BODY_BYTES, so a
server that trickles a byte a second, or sends 100 MB, is cut off as it sends. Responses come
uncompressed, so the bytes the hook counts are the answer's own. A fault found by the hook
comes back from the SDK as the cause of its connection error; model_http.from_anthropic unwraps it.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agentuse.core.model_http import (MAX_BODY_BYTES, CallError, check_headers, from_anthropic, garbled, too_deep,
                                      too_large)


class BoundedAnthropic:
    def __init__(self, sdk: Any, *, api_key: str, base_url: str | None, timeout: float, max_retries: int = 0) -> None:
        self._sdk, self._key = sdk, api_key
        self._ends = threading.local()  # the wall-clock end of the request in flight on this thread
        # identity: the hook counts bytes as they arrive, and a compressed body would be counted before it is
        # decoded (16 MB of gzip is 16 GB of answer); one sent compressed anyway is refused there.
        http = sdk.DefaultHttpxClient(follow_redirects=False, headers={"accept-encoding": "identity"},
                                      event_hooks={"response": [self._bound_body]})
        # max_retries defaults to 0: retrying is the caller's decision (Prefect task retries, the loop's), made once.
        self.client = sdk.Anthropic(api_key=api_key, base_url=base_url or None, timeout=timeout,
                                    max_retries=max_retries, http_client=http)
        self.messages = self.client.messages  # the SDK imports it on first use: not inside a deadline

    @contextmanager
    def until(self, ends: float) -> Iterator[None]:
        """Requests on this thread inside the block must have their whole body by `ends` (monotonic)."""
        previous = getattr(self._ends, "at", None)
        self._ends.at = ends
        try:
            yield
        finally:
            self._ends.at = previous

    def close(self) -> None:
        self.client.close()

    def create(self, **request: Any) -> Any:
        """`messages.create(**request)`: a Message, or a `CallError` for a body that is not one. The SDK hands
        back whatever a 200 held (an HTML page as a str, JSON null as None, a message with no content) and
        raises the decoder's own errors for bytes that are not UTF-8: every caller read `.content` of it and
        crashed. Like a body that is not JSON, it is a broken hop (a proxy, a captive portal): transient."""
        try:
            message = self.messages.create(**request)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise garbled("the API sent a body that is not JSON") from None
        except RecursionError:
            raise too_deep() from None
        if not isinstance(message, self._sdk.types.Message):
            kinds = {str: "text", type(None): "JSON null", list: "a JSON list"}
            kind = kinds.get(type(message), type(message).__name__)
            raise garbled(f"the API sent a body that is not a message ({kind})")
        if not isinstance(getattr(message, "content", None), list):
            raise garbled("the API sent a message without content")
        return message

    def fault(self, exc: Exception) -> CallError | None:
        """model_http.from_anthropic, with the key this client sends masked where the server echoed it."""
        fault = exc if isinstance(exc, CallError) else from_anthropic(self._sdk, exc)
        return None if fault is None else fault.masking(self._key)

    def _bound_body(self, response: Any) -> None:
        """httpx response hook, before any of the body is read.

        Written in the HTTP library of the response itself: the SDK moved from httpx to httpx2 within the
        releases pyproject allows, and each reads only its own streams and maps only its own timeouts."""
        check_headers(response.status_code, response.headers)
        if response.headers.get("content-encoding", "identity").strip().lower() not in ("identity", ""):
            raise CallError("the API sent a compressed response though asked for none (accept-encoding: "
                            "identity), which agentuse does not decode unbounded", transient=False)
        stream, ends, request = response.stream, getattr(self._ends, "at", None), response.request
        http = sys.modules[type(response).__module__.partition(".")[0]]  # httpx2 or httpx, already imported

        class Bounded(http.SyncByteStream):
            def __iter__(self):
                size = 0
                for chunk in stream:
                    if ends is not None and time.monotonic() > ends:
                        raise http.ReadTimeout("the response body did not arrive in time", request=request)
                    size += len(chunk)
                    if size > MAX_BODY_BYTES:
                        raise too_large()
                    yield chunk

            def close(self) -> None:
                stream.close()

        response.stream = Bounded()
