"""`POST {base_url}/chat/completions` for every OpenAI-compatible provider (OpenAI, OpenRouter, Ollama,
LM Studio, vLLM, llama.cpp, any `<NAME>_BASE_URL`), shared by agent runs and helper calls.

Plain httpx (a declared dependency, prefect has it anyway; ~0.1 s to import) rather than the openai SDK (not a dependency) or
pydantic-ai (a model layer of its own, ~2.3 s to import with its provider models, and a second retry and
validation policy beside the one tasks/retry.py and the pydantic answer models already apply): the wire
format is one JSON request and one JSON reply, and owning it keeps transient-vs-permanent, retry-after and
the wall-clock deadline exactly the same as on the Anthropic path.

Faults, retry-after and the body deadline are core/model_http.py's, shared with the other providers.
The reply is read into `ChatReply` at this edge: a server that sends `choices` as a string, a message as
text or token counts as words is a fault of one line (transient, like a body that is not JSON), not an
AttributeError in whoever reads it; what compatible servers really vary in (content as a list of parts,
tool arguments as an object instead of a JSON string, a numeric call id) is accepted.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, ValidationError

from agentuse.core.model_defaults import empty_list
from agentuse.core.model_http import CallError, at_url, garbled, retry_after_seconds, send, token_count, too_deep
from agentuse.core.models import Endpoint, request_url


def _text_of(value: Any) -> Any:
    """Content as one string: OpenAI's list of parts (`[{type: text, text}]`) joined."""
    if isinstance(value, list):
        return "\n".join(str(part.get("text") or "") for part in value
                         if isinstance(part, dict) and part.get("type") in ("text", None)) or None
    return value


class ChatFunction(BaseModel):
    name: str = ""
    arguments: str | dict | list | None = None  # JSON text as OpenAI sends it; some servers send the object


class ChatToolCall(BaseModel):
    id: Annotated[str | None, BeforeValidator(lambda v: v if v is None or isinstance(v, str) else str(v))] = None
    function: ChatFunction = Field(default_factory=ChatFunction)


class ChatMessage(BaseModel):
    content: Annotated[str | None, BeforeValidator(_text_of)] = None
    tool_calls: list[ChatToolCall] | None = None


class ChatChoice(BaseModel):
    message: ChatMessage = Field(default_factory=ChatMessage)
    finish_reason: str | None = None


class ChatReply(BaseModel):
    choices: list[ChatChoice] = Field(min_length=1)
    usage: Any = None  # read by `usage`, leniently

    @property
    def first(self) -> ChatChoice:
        return self.choices[0]

    @property
    def calls(self) -> list[ChatToolCall]:
        return self.first.message.tool_calls or empty_list()


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
               deadline: float | None = None) -> ChatReply:
        try:
            return self._create(body, timeout=timeout, deadline=deadline)
        except CallError as problem:  # a server that echoes the key it was sent: the line never shows it
            raise problem.masking(self._key) from None

    def _create(self, body: dict[str, Any], *, timeout: float | None, deadline: float | None) -> ChatReply:
        status, headers, raw = send(self._client, "POST", self.url, json=body, timeout=timeout, deadline=deadline)
        if status != 200:
            raise CallError(f"the API answered {status}{at_url(status, self.url)}: {_message(raw)}", status=status,
                            retry_after=retry_after_seconds(headers))
        try:
            reply = json.loads(raw)
        except ValueError:
            # A 200 whose body is not JSON is a broken hop (proxy, truncated body): another try may do better.
            raise garbled("the API sent a body that is not JSON") from None
        except RecursionError:
            raise too_deep() from None
        if isinstance(reply, dict) and isinstance(reply.get("error"), dict) and not reply.get("choices"):
            # OpenRouter (and proxies like it) send an upstream provider's failure as a 200 with an error
            # body: its own code says whether another try may do better (429, 502), not "no choices".
            code = reply["error"].get("code")
            status = code if isinstance(code, int) and 400 <= code <= 599 else None
            raise CallError(f"the API answered 200 with an error{f' {code}' if code else ''}: {_message(raw)}",
                            status=status, transient=None if status else False,
                            retry_after=retry_after_seconds(headers))
        if not isinstance(reply, dict) or not reply.get("choices"):
            raise garbled(f"the API sent no choices: {raw[:200]!r}")
        try:
            return ChatReply.model_validate(reply)
        except ValidationError as problem:
            first = problem.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise garbled(f"the API sent a reply that is not a chat completion ({where}: {first['msg']})") from None

    def close(self) -> None:
        self._client.close()


def _message(raw: bytes) -> str:
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):
        return raw[:200].decode("utf-8", "replace").strip() or "(empty body)"
    detail = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(detail, dict) and detail.get("message"):
        return str(detail["message"])
    return str(detail)[:200]


def usage(reply: ChatReply) -> tuple[int, int]:
    counts = reply.usage if isinstance(reply.usage, dict) else {}
    return token_count(counts.get("prompt_tokens")), token_count(counts.get("completion_tokens"))
