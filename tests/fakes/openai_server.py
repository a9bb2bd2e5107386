"""A fake OpenAI Chat Completions API on 127.0.0.1 (`POST /v1/chat/completions`), over real HTTP.

The same machinery and the same scripted replies as the fake Messages API (messages_server.py): a reply's
`text` and `tool_use` blocks become the message's `content` and `tool_calls`, an error reply becomes the
OpenAI error body with its `retry-after`, delays, silence and trickling work as there. Only non-streamed
completions are served: agentuse never asks for `stream: true` on this API. Point a provider at it with `server.env("OPENAI")` (or "OLLAMA", or
any custom name): `<NAME>_BASE_URL` is `server.url + "/v1"`.

    server.script(tool_use("write_file", {"path": "a.md", "content": "hi"}), text("Done"))
    server.script(lambda req: json_answer({...}) if req.schema_name else tool_use(req.forced_tool, {...}))
"""

from __future__ import annotations

import json
from typing import Any

from .messages_server import FakeMessagesServer, RecordedRequest, Reply, text


def json_answer(value: Any, **kw: Any) -> Reply:
    """An answer in the message content as JSON text: what a `response_format: json_schema` call returns."""
    return text(json.dumps(value), **kw)


class FakeOpenAIServer(FakeMessagesServer):
    PATH = "/v1/chat/completions"
    NAME = "fake_openai"

    def env(self, provider: str = "OPENAI", api_key: str | None = "sk-fake-openai") -> dict[str, str]:  # type: ignore[override]
        env = {f"{provider}_BASE_URL": f"{self.url}/v1"}
        if api_key is not None:
            env[f"{provider}_API_KEY"] = api_key
        return env

    def _error_body(self, reply: Reply) -> dict[str, Any]:
        return {"error": {"message": reply.message, "type": reply.error_type, "code": reply.status}}

    def _message(self, reply: Reply, record: RecordedRequest) -> dict[str, Any]:
        texts = [b["text"] for b in reply.content if b.get("type") == "text" and b.get("text")]
        calls = []
        for n, block in enumerate(b for b in reply.content if b.get("type") == "tool_use"):
            arguments = block["input"] if isinstance(block["input"], str) else json.dumps(block["input"])
            calls.append({"id": block.get("id") or f"call_fake_{record.index}_{n}", "type": "function",
                          "function": {"name": block["name"], "arguments": arguments}})
        message: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) or None}
        if calls:
            message["tool_calls"] = calls
        finish = {"max_tokens": "length", "tool_use": "tool_calls", "end_turn": "stop"}.get(
            reply.stop_reason or "", "tool_calls" if calls else "stop")
        body = record.body if isinstance(record.body, dict) else {}
        return {
            "id": f"chatcmpl-fake-{record.index}", "object": "chat.completion", "created": 0,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": reply.input_tokens, "completion_tokens": reply.output_tokens,
                      "total_tokens": reply.input_tokens + reply.output_tokens},
        }
