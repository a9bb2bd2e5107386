"""`bedrock:<model id>` in the tool loop: one Converse request per turn (core/bedrock.py).

The loop's Anthropic-shaped conversation is translated at this edge, as for Chat Completions
(runtime/providers.py): text blocks stay `text`, tool_use blocks become `toolUse`, tool_result blocks
`toolResult` (with `status: error` for a failed tool); the reply comes back as the loop's own blocks, so
sessions, approval gates and `replay:` are unchanged. Converse wants the roles to alternate, starting
with the user, and no blank text block: consecutive messages of one role are joined, blank text dropped.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from agentuse.core import bedrock
from agentuse.core.models import Endpoint
from agentuse.runtime.messages import (ModelCall, ModelReply, TextBlock, ToolResultBlock, ToolUseBlock, Usage,
                                       new_call_id)
from agentuse.runtime.providers import RUN_REQUEST_SECONDS, ModelError, with_retries


class BedrockProvider:
    def __init__(self, where: Endpoint, *, max_retries: int = 2, timeout: float = RUN_REQUEST_SECONDS) -> None:
        self.model = f"bedrock:{where.ref.model}"
        self.max_retries = max_retries
        self._client = bedrock.ConverseClient(where, timeout=timeout)

    def complete(self, call: ModelCall) -> ModelReply:
        body: dict[str, Any] = {"messages": converse_messages(call), "inferenceConfig": {"maxTokens": call.max_tokens}}
        if call.system:
            body["system"] = [{"text": call.system}]
        if call.tools:
            body["toolConfig"] = {"tools": [{"toolSpec": {
                "name": t.name, "description": t.description, "inputSchema": {"json": t.input_schema}}}
                for t in call.tools]}
        reply = with_retries(lambda: self._client.converse(body), model=self.model,
                             key_variable=bedrock.CREDENTIALS, max_retries=self.max_retries)
        return self._reply(reply)

    def _reply(self, reply: dict[str, Any]) -> ModelReply:
        blocks: list[dict[str, Any]] = []
        for block in bedrock.content(reply):  # reasoning and other block kinds are not replayable here
            if (block.get("text") or "").strip():
                blocks.append({"type": "text", "text": block["text"]})
            elif "toolUse" in block:
                use = block["toolUse"]
                blocks.append({"type": "tool_use", "id": use.get("toolUseId") or new_call_id("tooluse"),
                               "name": use.get("name") or "", "input": use.get("input") or {}})
        input_tokens, output_tokens = bedrock.usage(reply)
        try:
            return ModelReply(content=blocks, stop_reason=reply.get("stopReason"),
                              usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens))
        except ValidationError as problem:
            raise ModelError(f"{self.model}: unreadable reply: {problem}") from None


def converse_messages(call: ModelCall) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in call.messages:
        content: list[dict[str, Any]] = []
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                content.append({"text": block.text})
            elif isinstance(block, ToolUseBlock):
                content.append({"toolUse": {"toolUseId": block.id, "name": block.name, "input": block.input}})
            elif isinstance(block, ToolResultBlock):
                content.append({"toolResult": {"toolUseId": block.tool_use_id,
                                               "content": [{"text": block.content or "(no output)"}],
                                               "status": "error" if block.is_error else "success"}})
        if not content:
            continue
        if out and out[-1]["role"] == message.role:
            out[-1]["content"].extend(content)
        else:
            out.append({"role": message.role, "content": content})
    return out
