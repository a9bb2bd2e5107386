"""A fake Amazon Bedrock Converse API on 127.0.0.1 (`POST /model/{modelId}/converse`), over real HTTP,
spoken to by the real botocore client (SigV4-signed, as it would sign for AWS).

The same machinery and scripted replies as the fake Messages API (messages_server.py): a reply's `text`
and `tool_use` blocks become Converse `text` and `toolUse` content blocks, an error reply becomes the
AWS error (`x-amzn-errortype`, e.g. ThrottlingException for a 429) with its `retry-after`; delays, silence
and trickling work as there. `server.env()` points the client here with fake credentials and a region:

    server.script(tool_use("write_file", {"path": "a.md", "content": "hi"}), text("Done"))
    server.requests[0].model_id, server.requests[0].headers["authorization"]   # AWS4-HMAC-SHA256 ...
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from .messages_server import FakeMessagesServer, RecordedRequest, Reply, error

_PATH = re.compile(r"^/model/([^/]+)/converse$")

# The error type Bedrock names for each status (botocore reads it from x-amzn-errortype).
AWS_ERRORS = {400: "ValidationException", 403: "AccessDeniedException", 404: "ResourceNotFoundException",
              408: "ModelTimeoutException", 424: "ModelErrorException", 429: "ThrottlingException",
              500: "InternalServerException", 503: "ServiceUnavailableException"}

# A SigV4 Authorization header: credential scope <key>/<date>/<region>/bedrock/aws4_request.
SIGV4 = re.compile(r"^AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/bedrock/"
                   r"aws4_request, SignedHeaders=(?P<signed>[a-z0-9;-]+), Signature=[0-9a-f]{64}$")

ACCESS_KEY = "AKIAFAKEFAKEFAKE"
REGION = "eu-west-3"


def throttled(**kw: Any) -> Reply:
    kw.setdefault("retry_after", 0)
    return error(429, "ThrottlingException", "Too many requests, please wait before trying again.", **kw)


def model_id(record: RecordedRequest) -> str | None:
    match = _PATH.match(record.path.split("?")[0])
    return unquote(match.group(1)) if match else None


class FakeBedrockServer(FakeMessagesServer):
    PATH = "/model/{modelId}/converse"
    NAME = "fake_bedrock"

    def serves(self, path: str) -> bool:
        return bool(_PATH.match(path))

    def env(self, *, credentials: bool = True, region: str | None = REGION) -> dict[str, str]:  # type: ignore[override]
        """AWS_ENDPOINT_URL_BEDROCK_RUNTIME to here, a region, and fake static credentials."""
        env = {"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": self.url}
        if region:
            env["AWS_REGION"] = region
        if credentials:
            env |= {"AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": "fake-secret"}
        return env

    def _error_headers(self, reply: Reply) -> dict[str, str]:
        kind = reply.error_type if reply.error_type.endswith("Exception") else AWS_ERRORS.get(reply.status)
        return {"x-amzn-errortype": kind or "InternalServerException"}

    def _error_body(self, reply: Reply) -> dict[str, Any]:
        return {"message": reply.message}

    def _message(self, reply: Reply, record: RecordedRequest) -> dict[str, Any]:
        blocks: list[dict[str, Any]] = []
        for n, block in enumerate(reply.content):
            if block.get("type") == "text" and block.get("text"):
                blocks.append({"text": block["text"]})
            elif block.get("type") == "tool_use":
                blocks.append({"toolUse": {"toolUseId": block.get("id") or f"tooluse_fake_{record.index}_{n}",
                                           "name": block["name"], "input": block["input"]}})
        has_tool = any("toolUse" in b for b in blocks)
        return {
            "output": {"message": {"role": "assistant", "content": blocks}},
            "stopReason": reply.stop_reason or ("tool_use" if has_tool else "end_turn"),
            "usage": {"inputTokens": reply.input_tokens, "outputTokens": reply.output_tokens,
                      "totalTokens": reply.input_tokens + reply.output_tokens},
            "metrics": {"latencyMs": 1},
        }
