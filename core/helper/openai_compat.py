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

import re
import time
from typing import Any

from pydantic import BaseModel

from agentuse.core.chat_completions import ChatClient, ChatError, usage
from agentuse.core.helper import deadline
from agentuse.core.helper import protocol as p
from agentuse.core.helper.operations import Operation, OperationsMixin, validate
from agentuse.core.helper.render import prompt, render
from agentuse.core.models import Endpoint

_TRANSIENT_REASONS = {429: "rate-limited", 408: "timed out", 409: "busy (409)", 503: "overloaded"}
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class OpenAICompatHelper(OperationsMixin):
    def __init__(self, where: Endpoint, *, limits: deadline.Limits | None = None) -> None:
        self.limits = limits or deadline.Limits.from_env()
        self.budget = deadline.Budget(self.limits.command)  # the command's budget starts now
        self.spec, self.model = where.spec, where.ref.model
        self.name = f"{where.spec.name}:{where.ref.model}"
        self.key_variable = where.ref.key_variable(where.spec)
        self.usage = p.HelperUsage()
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
        seconds, expired = deadline.request_limit(self.limits, self.budget, op.name)
        try:
            reply = self._client.create(body, timeout=seconds, deadline=time.monotonic() + seconds)
        except ChatError as problem:
            if problem.timed_out and expired is not None:
                raise expired from problem  # the call's deadline or the command's budget: not worth a retry
            raise self._fault(op.name, problem) from problem
        # Tokens are spent whether or not the answer validates, so count before judging it.
        self.usage.add(*usage(reply))
        return self._answer(op, reply)

    def _answer(self, op: Operation, reply: dict[str, Any]) -> Any:
        choice = reply["choices"][0] or {}
        message = choice.get("message") or {}
        out_of_tokens = choice.get("finish_reason") == "length"
        if self.spec.forced_tools:
            calls = [c.get("function") or {} for c in message.get("tool_calls") or []]
            answers = [c.get("arguments") for c in calls if c.get("name") == op.tool_name]
            if not answers:
                why = "ran out of output tokens" if out_of_tokens else "did not call the tool"
                raise p.InvalidAnswerError(f"{op.name}: the model {why} ({op.tool_name})", operation=op.name)
            return validate(op, answers[0])
        content = (message.get("content") or "").strip()
        if not content:
            why = "ran out of output tokens" if out_of_tokens else "sent an empty answer"
            raise p.InvalidAnswerError(f"{op.name}: the model {why}", operation=op.name)
        fenced = _FENCE.match(content)  # small local models often wrap JSON in a code fence
        return validate(op, fenced.group(1) if fenced else content)

    def _fault(self, operation: str, problem: ChatError) -> p.HelperError:
        text = f"{operation}: {self.name}: {problem}"
        if problem.transient:
            if problem.status is None:
                reason = "timed out" if problem.timed_out else "unreachable"
            else:
                reason = _TRANSIENT_REASONS.get(problem.status, f"failed ({problem.status})")
            return p.TransientHelperError(text, operation=operation, status=problem.status, reason=reason,
                                          retry_after=problem.retry_after)
        if problem.status in (401, 403) and self.key_variable:
            text += f" (check {self.key_variable})"
        return p.PermanentHelperError(text, operation=operation, status=problem.status)
