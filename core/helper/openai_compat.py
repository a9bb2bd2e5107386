"""The Helper protocol on the OpenAI Chat Completions API: OpenAI, OpenRouter, Ollama, LM Studio and any
`<NAME>_BASE_URL` endpoint (core/models.py), over core/chat_completions.py.

Each operation sends its prompt file as the system message and the rendered request as the user message,
like the Anthropic helper, and asks for the answer in the operation's answer model:
- a provider that honours `tool_choice` (ProviderSpec.forced_tools) gets one function whose parameters
  are the answer model's JSON schema, forced by name; the answer is that call's arguments;
- one that does not (Ollama, LM Studio) gets `response_format: {type: json_schema}`; the answer is the
  message content.
Either way the answer is validated by the same pydantic model (operations.validate). Transient faults
(429, 408/409, 5xx, timeouts, no connection) raise TransientHelperError carrying the server's
retry-after; the rest PermanentHelperError; each request runs against core/helper/deadline.py's limits.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agentuse.core.chat_completions import ChatClient, ChatReply, usage
from agentuse.core.helper import deadline
from agentuse.core.helper.operations import ModelHelper, Operation, json_text, no_answer, validate
from agentuse.core.helper.render import prompt, render
from agentuse.core.models import Endpoint


class OpenAICompatHelper(ModelHelper):
    def __init__(self, where: Endpoint, *, limits: deadline.Limits | None = None) -> None:
        super().__init__(f"{where.spec.name}:{where.ref.model}", limits)
        self.spec, self.model = where.spec, where.ref.model
        self.key_variable = where.ref.key_variable(where.spec)
        self._client = ChatClient(where, timeout=self.limits.request)

    def close(self) -> None:
        self._client.close()

    def _ask(self, op: Operation, request: BaseModel) -> Any:
        schema = op.answer.model_json_schema()
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "system", "content": prompt(op.name, json_answer=not self.spec.forced_tools)},
                         {"role": "user", "content": render(op.name, request)}],
            self.spec.max_tokens_field: op.max_tokens,
        }
        if self.spec.forced_tools:
            body["tools"] = [{"type": "function", "function": {
                "name": op.tool_name, "description": op.description, "parameters": schema}}]
            body["tool_choice"] = {"type": "function", "function": {"name": op.tool_name}}
        else:
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": op.tool_name, "schema": schema}}
        reply = self.send(op, lambda seconds, ends: self._client.create(body, timeout=seconds, deadline=ends),
                          check=self.key_variable)
        # Tokens are spent whether or not the answer validates, so count before judging it.
        self.usage.add(*usage(reply))
        return self._answer(op, reply)

    def _answer(self, op: Operation, reply: ChatReply) -> Any:
        choice = reply.first
        out_of_tokens = choice.finish_reason == "length"
        if self.spec.forced_tools:
            answers = [c.function.arguments for c in reply.calls if c.function.name == op.tool_name]
            if not answers:
                raise no_answer(op, out_of_tokens=out_of_tokens)
            return validate(op, answers[0])
        content = json_text(choice.message.content)
        if not content:
            raise no_answer(op, out_of_tokens=out_of_tokens, by_tool=False)
        return validate(op, content)
