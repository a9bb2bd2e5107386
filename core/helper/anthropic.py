"""The Helper protocol on the Anthropic Messages API, with structured answers through forced tool use.

Each operation sends its prompt file as the system prompt, the rendered request as the user message, and
one tool whose input schema is the operation's answer model; `tool_choice` forces that tool, so the answer
is the tool's input. Every answer is validated: a model that answers in the wrong shape is a model fault
(`InvalidAnswerError`), which callers handle as the spec says for that step (fail closed for free-form
capture, open for human corrections).

Every request runs against a wall-clock limit (core/helper/deadline.py): the SDK's timeout bounds each
read, and the client's response hook (core/anthropic_client.py) bounds the whole body, in time and size,
so a server that trickles a byte a second, or sends 100 MB, is cut off too; no redirect is followed.

The SDK is imported in the constructor only, so read-only commands that never build a helper never pay
for `import anthropic` (~1.3 s here).
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel

from agentuse.core.anthropic_client import BoundedAnthropic
from agentuse.core.helper import deadline
from agentuse.core.helper import protocol as p
from agentuse.core.helper.operations import OPERATIONS, ModelHelper, Operation, no_answer, validate
from agentuse.core.helper.render import prompt, render
from agentuse.core.model_http import auth_hint

PROVIDER = "anthropic"

def tool_name(operation: str) -> str:
    return OPERATIONS[operation].tool_name


class AnthropicHelper(ModelHelper):
    """`AnthropicHelper("anthropic:claude-sonnet-5", api_key=...)`; the `anthropic:` prefix is optional."""

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None,
                 timeout: float | None = None, max_retries: int = 0,
                 limits: deadline.Limits | None = None, key_variable: str = "ANTHROPIC_API_KEY") -> None:
        """`limits` default to the environment (deadline.Limits.from_env); `timeout` overrides its
        per-request limit. The command's budget starts now: a command makes its helper once."""
        import anthropic  # lazily: see the module docstring

        limits = limits or deadline.Limits.from_env()
        self.model = model.split(":", 1)[1] if model.startswith(f"{PROVIDER}:") else model
        super().__init__(f"{PROVIDER}:{self.model}",
                         limits if timeout is None else limits.model_copy(update={"request": timeout}))
        self.key_variable = key_variable
        self._sdk = anthropic
        self._client = BoundedAnthropic(anthropic, api_key=api_key, base_url=base_url, timeout=self.limits.request,
                                        max_retries=max_retries)

    def close(self) -> None:
        self._client.close()

    # --- one call ---------------------------------------------------------------------------------
    def _ask(self, op: Operation, request: BaseModel) -> Any:
        operation, name = op.name, op.tool_name
        tool = {"name": name, "description": op.description, "input_schema": op.answer.model_json_schema()}
        seconds, expired = self.request_limit(op)
        try:
            with self._client.until(time.monotonic() + seconds):
                message = self._client.create(
                    model=self.model,
                    max_tokens=op.max_tokens,
                    system=prompt(operation),
                    messages=[{"role": "user", "content": render(operation, request)}],
                    tools=[tool],
                    tool_choice={"type": "tool", "name": name},
                    timeout=seconds,  # each read; the client's response hook bounds the whole body
                )
        except Exception as exc:  # noqa: BLE001 - translated below; anything unknown re-raises as is
            if expired is not None and isinstance(exc, self._sdk.APITimeoutError):
                raise expired from exc  # the call's deadline or the command's budget: not worth a retry
            fault = self._translate(operation, exc)
            if fault is exc:
                raise
            raise fault from exc
        usage = getattr(message, "usage", None)
        # Tokens are spent whether or not the answer validates, so count before judging it.
        self.usage.add(getattr(usage, "input_tokens", 0) or 0, getattr(usage, "output_tokens", 0) or 0)
        return self._answer(op, message)

    def _answer(self, op: Operation, message: Any) -> Any:
        name = op.tool_name
        blocks = [b for b in message.content if getattr(b, "type", None) == "tool_use" and b.name == name]
        if not blocks:
            raise no_answer(op, out_of_tokens=message.stop_reason == "max_tokens")
        return validate(op, blocks[0].input)

    def _translate(self, operation: str, exc: Exception) -> Exception:
        sdk = self._sdk
        fault = self._client.fault(exc)
        if fault is not None:
            text = f"{operation}: {self.name}: {fault}{auth_hint(fault.status, self.key_variable)}"
            return fault.helper_error(operation, text)
        if isinstance(exc, sdk.APIResponseValidationError):
            return p.InvalidAnswerError(f"{operation}: the model API response is malformed: {exc}",
                                        operation=operation)
        return exc  # a programming error: let it surface unchanged
