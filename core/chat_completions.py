"""`POST {base_url}/chat/completions` for every OpenAI-compatible provider (OpenAI, OpenRouter, Ollama,
LM Studio, vLLM, llama.cpp, any `<NAME>_BASE_URL`), shared by agent runs and helper calls.

Plain httpx (a declared dependency, prefect has it anyway; ~0.1 s to import) rather than the openai SDK (not a dependency) or
pydantic-ai (a model layer of its own, ~2.3 s to import with its provider models, and a second retry and
validation policy beside the one tasks/retry.py and the pydantic answer models already apply): the wire
format is one JSON request and one JSON reply, and owning it keeps transient-vs-permanent, retry-after and
the wall-clock deadline exactly the same as on the Anthropic path.

Faults, retry-after and the body deadline are core/model_http.py's, shared with the other providers.
"""

from __future__ import annotations

import json
from typing import Any

from agentuse.core.model_http import CallError, retry_after_seconds, send
from agentuse.core.models import Endpoint, request_url


class ChatClient:
    def __init__(self, where: Endpoint, *, timeout: float = 120.0) -> None:
        import httpx  # lazily: only commands that call a model pay for it

        self.url = request_url(where) or ""
        self._key = where.api_key
        headers = {"content-type": "application/json"}
        if where.api_key:
            headers["authorization"] = f"Bearer {where.api_key}"
        self._client = httpx.Client(headers=headers, timeout=timeout)

    def create(self, body: dict[str, Any], *, timeout: float | None = None,
               deadline: float | None = None) -> dict[str, Any]:
        try:
            return self._create(body, timeout=timeout, deadline=deadline)
        except CallError as problem:  # a server that echoes the key it was sent: the line never shows it
            raise problem.masking(self._key) from None

    def _create(self, body: dict[str, Any], *, timeout: float | None, deadline: float | None) -> dict[str, Any]:
        status, headers, raw = send(self._client, "POST", self.url, json=body, timeout=timeout, deadline=deadline)
        if status != 200:
            raise CallError(f"the API answered {status}: {_message(raw)}", status=status,
                            retry_after=retry_after_seconds(headers))
        try:
            reply = json.loads(raw)
        except ValueError:
            # A 200 whose body is not JSON is a broken hop (proxy, truncated body): another try may do better.
            raise CallError("the API sent a body that is not JSON", status=502) from None
        if not isinstance(reply, dict) or not reply.get("choices"):
            raise CallError(f"the API sent no choices: {raw[:200]!r}", status=502)
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


def usage(reply: dict[str, Any]) -> tuple[int, int]:
    counts = reply.get("usage") or {}
    return int(counts.get("prompt_tokens") or 0), int(counts.get("completion_tokens") or 0)
