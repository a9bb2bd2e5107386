"""`POST {base_url}/chat/completions` for every OpenAI-compatible provider (OpenAI, OpenRouter, Ollama,
LM Studio, vLLM, llama.cpp, any `<NAME>_BASE_URL`), shared by agent runs and helper calls.

Plain httpx (a declared dependency, prefect has it anyway; ~0.1 s to import) rather than the openai SDK (not a dependency) or
pydantic-ai (a model layer of its own, ~2.3 s to import with its provider models, and a second retry and
validation policy beside the one tasks/retry.py and the pydantic answer models already apply): the wire
format is one JSON request and one JSON reply, and owning it keeps transient-vs-permanent, retry-after and
the wall-clock deadline exactly the same as on the Anthropic path.

The whole body must arrive by `deadline` (a monotonic time): a server that trickles a byte a second past
every read timeout is cut off too (core/helper/deadline.py says why).
"""

from __future__ import annotations

import json
import time
from typing import Any

from agentuse.core.models import Endpoint


class ChatError(Exception):
    """The call failed. `status` is None when no HTTP answer came (timeout, connection refused)."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None,
                 timed_out: bool = False) -> None:
        super().__init__(message)
        self.status, self.retry_after, self.timed_out = status, retry_after, timed_out

    @property
    def transient(self) -> bool:
        """Worth another attempt: no answer, a timeout, rate limiting, a conflict or a server-side fault."""
        return self.status is None or self.status in (408, 409, 429) or self.status >= 500


class ChatClient:
    def __init__(self, where: Endpoint, *, timeout: float = 120.0) -> None:
        import httpx  # lazily: only commands that call a model pay for it

        self._httpx = httpx
        self.url = f"{(where.base_url or '').rstrip('/')}/chat/completions"
        headers = {"content-type": "application/json"}
        if where.api_key:
            headers["authorization"] = f"Bearer {where.api_key}"
        self._client = httpx.Client(headers=headers, timeout=timeout)

    def create(self, body: dict[str, Any], *, timeout: float | None = None,
               deadline: float | None = None) -> dict[str, Any]:
        httpx = self._httpx
        try:
            with self._client.stream("POST", self.url, json=body, timeout=timeout or httpx.USE_CLIENT_DEFAULT) as r:
                chunks = []
                for chunk in r.iter_bytes():
                    if deadline is not None and time.monotonic() > deadline:
                        raise ChatError("the response body did not arrive in time", timed_out=True)
                    chunks.append(chunk)
                raw = b"".join(chunks)
        except httpx.TimeoutException as problem:
            raise ChatError(f"the call timed out ({type(problem).__name__})", timed_out=True) from None
        except httpx.HTTPError as problem:  # refused, reset, DNS: no answer at all
            raise ChatError(f"could not reach {self.url}: {problem}") from None
        if r.status_code != 200:
            raise ChatError(f"the API answered {r.status_code}: {_message(raw)}", status=r.status_code,
                            retry_after=retry_after_seconds(r.headers))
        try:
            reply = json.loads(raw)
        except ValueError:
            # A 200 whose body is not JSON is a broken hop (proxy, truncated body): another try may do better.
            raise ChatError("the API sent a body that is not JSON", status=502) from None
        if not isinstance(reply, dict) or not reply.get("choices"):
            raise ChatError(f"the API sent no choices: {raw[:200]!r}", status=502)
        return reply

    def close(self) -> None:
        self._client.close()


def _message(raw: bytes) -> str:
    try:
        body = json.loads(raw)
    except ValueError:
        return raw[:200].decode("utf-8", "replace").strip() or "(empty body)"
    detail = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(detail, dict) and detail.get("message"):
        return str(detail["message"])
    return str(detail)[:200]


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms`, or `retry-after` in seconds), if any."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            value = float(headers.get(name, ""))
        except ValueError:
            continue
        if value >= 0:
            return value * scale
    return None


def usage(reply: dict[str, Any]) -> tuple[int, int]:
    counts = reply.get("usage") or {}
    return int(counts.get("prompt_tokens") or 0), int(counts.get("completion_tokens") or 0)
