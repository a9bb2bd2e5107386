"""The Helper protocol on Amazon Bedrock's Converse API (core/bedrock.py), for `bedrock:<model id>`.

Each operation sends its prompt file as the system prompt and the rendered request as the user message,
as the other helpers do, and asks for the answer in the operation's answer model:
- a model that honours a forced tool (`toolChoice: {tool: {name}}`: Claude and Amazon Nova on Bedrock,
  named by the model id, an inference profile's included) gets one tool whose input schema is the answer
  model's, forced by name; the answer is that tool's input;
- any other model (Llama, Mistral, ...: Converse rejects a forced tool for them) is asked for one JSON
  object, the schema in the system prompt; the answer is the message text.
Either way the same pydantic model validates it (operations.validate). Faults are core/model_http.py's,
each request runs against core/helper/deadline.py's limits.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from agentuse.core import bedrock
from agentuse.core.helper import deadline
from agentuse.core.helper.operations import ModelHelper, Operation, json_text, no_answer, validate
from agentuse.core.helper.render import prompt, render
from agentuse.core.models import Endpoint

# Model families whose Converse honours `toolChoice: {tool: ...}` (Bedrock's ToolChoice reference).
_FORCED_TOOL_FAMILIES = ("anthropic.", "amazon.nova")


def forces_tools(model_id: str) -> bool:
    return any(family in model_id.lower() for family in _FORCED_TOOL_FAMILIES)


class BedrockHelper(ModelHelper):
    def __init__(self, where: Endpoint, *, limits: deadline.Limits | None = None) -> None:
        super().__init__(f"bedrock:{where.ref.model}", limits)
        self.model = where.ref.model
        self.forced_tools = forces_tools(self.model)
        self._client = bedrock.ConverseClient(where, timeout=self.limits.request)

    def close(self) -> None:
        self._client.close()

    def _ask(self, op: Operation, request: BaseModel) -> Any:
        schema = op.answer.model_json_schema()
        system = prompt(op.name, json_answer=not self.forced_tools)
        body: dict[str, Any] = {
            "messages": [{"role": "user", "content": [{"text": render(op.name, request)}]}],
            "inferenceConfig": {"maxTokens": op.max_tokens},
        }
        if self.forced_tools:
            body["toolConfig"] = {
                "tools": [{"toolSpec": {"name": op.tool_name, "description": op.description,
                                        "inputSchema": {"json": schema}}}],
                "toolChoice": {"tool": {"name": op.tool_name}}}
        else:
            system += f"\n\nThe response schema ({op.tool_name}):\n{json.dumps(schema)}"
        body["system"] = [{"text": system}]
        reply = self.send(op, lambda seconds, ends: self._client.converse(body, timeout=seconds, deadline=ends),
                          check=bedrock.CREDENTIALS)
        # Tokens are spent whether or not the answer validates, so count before judging it.
        self.usage.add(*bedrock.usage(reply))
        return self._answer(op, reply)

    def _answer(self, op: Operation, reply: dict[str, Any]) -> Any:
        blocks = bedrock.content(reply)
        out_of_tokens = reply.get("stopReason") == "max_tokens"
        if self.forced_tools:
            answers = [b["toolUse"].get("input") for b in blocks
                       if "toolUse" in b and b["toolUse"].get("name") == op.tool_name]
            if not answers:
                raise no_answer(op, out_of_tokens=out_of_tokens)
            return validate(op, answers[0])
        content = json_text("\n".join(b.get("text") or "" for b in blocks if "text" in b))
        if not content:
            raise no_answer(op, out_of_tokens=out_of_tokens, by_tool=False)
        return validate(op, content)
