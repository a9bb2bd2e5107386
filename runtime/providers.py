"""Model providers behind one small protocol, chosen by the `provider:model` string (core/models.py).

- `anthropic:<model>`: the Messages API through the anthropic SDK (imported only when used, it costs
  ~1.3 s). ANTHROPIC_API_KEY is required; ANTHROPIC_BASE_URL is honoured (the tests' fake server).
- `openai:`, `openrouter:`, `ollama:`, `lmstudio:` and any `<name>:` with `<NAME>_BASE_URL` set: the Chat
  Completions API (core/chat_completions.py). The loop's Anthropic-shaped conversation is translated at
  this edge: tools become functions, tool_use blocks `tool_calls`, tool_result blocks `role: tool`
  messages; the reply comes back as the same blocks, so sessions, approval and replay are unchanged.
- `bedrock:<model id>`: Amazon Bedrock's Converse API (runtime/bedrock.py, core/bedrock.py), signed by the
  standard AWS credential chain; botocore is the optional extra `agentuse[bedrock]`.
- `replay:<session-file>`: plays back the model replies recorded in a session log, in order, so examples,
  the demo and tests run the real loop — tools included — with no key and no network.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol, TypeVar

from pydantic import ValidationError

from agentuse.core.chat_completions import ChatClient, ChatReply, usage
from agentuse.core.errors import AgentuseError
from agentuse.core.model_http import CallError, auth_hint
from agentuse.core.models import Endpoint, Family, ModelRef, ModelRefError, endpoint, missing_key, url_problem
from agentuse.runtime.events import ModelReplyEvent
from agentuse.runtime.messages import (ModelCall, ModelReply, TextBlock, ToolResultBlock, ToolUseBlock, Usage,
                                       new_call_id)
from agentuse.runtime.session import SessionError, read_events

RUN_FAMILIES = (Family.anthropic, Family.openai_chat, Family.bedrock, Family.replay)
# One loop turn's request, its whole body included: a server that trickles a byte a second past every read
# timeout is cut off too. An agent turn can write a long file, so far longer than a helper call's 120 s.
RUN_REQUEST_SECONDS = 600.0
# The longest a loop turn sleeps before retrying: a server asking for longer (a 529 with retry-after of an
# hour) fails the turn at once, saying so, rather than after minutes of waits that end in the same fault.
RUN_RETRY_WAIT_SECONDS = 60.0


class ModelError(AgentuseError):
    """The model could not answer (API error, bad reply, replay exhausted). The run ends `failed`."""


class MissingKeyError(AgentuseError):
    pass


class Provider(Protocol):
    model: str  # the full `provider:model` string, as recorded in run_start

    def complete(self, call: ModelCall) -> ModelReply: ...


class ReplayProvider:
    """Returns the recorded `model_reply` events one per call; `skip` replies already used (a resume)."""

    def __init__(self, path: Path, *, skip: int = 0, model: str | None = None) -> None:
        self.path = path
        self.model = model or f"replay:{path}"
        try:
            events, _ = read_events(path)
        except SessionError:
            raise ModelError(f"replay session file {path} does not exist") from None
        self.replies = [e for e in events if isinstance(e, ModelReplyEvent)]
        if not self.replies:
            raise ModelError(f"replay session file {path} holds no model replies")
        self.used = skip

    def complete(self, call: ModelCall) -> ModelReply:
        if self.used >= len(self.replies):
            raise ModelError(
                f"replay session {self.path.name} ran out of model replies: the run asked for reply "
                f"{self.used + 1} but only {len(self.replies)} were recorded"
            )
        event = self.replies[self.used]
        self.used += 1
        return ModelReply(content=event.content, stop_reason=event.stop_reason, usage=event.usage)


class AnthropicProvider:
    """One Messages API request per loop turn (`with_retries`: the SDK's own retries are off)."""

    def __init__(self, name: str, *, api_key: str, base_url: str | None = None, max_retries: int = 2,
                 key_variable: str | None = None, timeout: float = RUN_REQUEST_SECONDS) -> None:
        import anthropic  # lazily: only runs that talk to Anthropic pay for the import

        from agentuse.core.anthropic_client import BoundedAnthropic

        self.model = f"anthropic:{name}"
        self.name, self.key_variable, self.max_retries, self.timeout = name, key_variable, max_retries, timeout
        self._client = BoundedAnthropic(anthropic, api_key=api_key, base_url=base_url, timeout=timeout)

    def complete(self, call: ModelCall) -> ModelReply:
        message = with_retries(lambda: self._create(call), model=self.model, key_variable=self.key_variable,
                               max_retries=self.max_retries)
        try:
            # Only the block kinds the loop understands are kept (thinking blocks etc. are not replayable here).
            # warnings=False: the SDK builds blocks unvalidated, so a tool input the server sent as text made
            # pydantic print a serializer warning to stderr; ModelReply below judges the shape instead.
            blocks = [b.model_dump(mode="json", warnings=False) for b in message.content
                      if getattr(b, "type", None) in ("text", "tool_use")]
            return ModelReply(
                content=[{k: v for k, v in b.items() if k in ("type", "text", "id", "name", "input")} for b in blocks],
                stop_reason=message.stop_reason,
                usage=Usage(input_tokens=message.usage.input_tokens, output_tokens=message.usage.output_tokens),
            )
        except ValueError as problem:  # a ValidationError, or the serializer refusing input nested too deep
            raise ModelError(f"{self.model}: unreadable reply: {problem}") from None

    def _create(self, call: ModelCall):
        try:
            with self._client.until(time.monotonic() + self.timeout):
                return self._client.create(
                    model=self.name,
                    max_tokens=call.max_tokens,
                    system=call.system,
                    messages=[m.model_dump(mode="json") for m in call.messages],
                    tools=[t.model_dump(mode="json") for t in call.tools],
                )
        except Exception as exc:  # noqa: BLE001 - the SDK's faults as CallError; anything else re-raises
            fault = self._client.fault(exc)
            if fault is None:
                raise
            raise fault from None


class OpenAIChatProvider:
    """One Chat Completions request per loop turn (`with_retries`)."""

    def __init__(self, where: Endpoint, *, max_retries: int = 2, timeout: float = RUN_REQUEST_SECONDS) -> None:
        self.model = f"{where.spec.name}:{where.ref.model}"
        self.name, self.spec, self.max_retries, self.timeout = where.ref.model, where.spec, max_retries, timeout
        self.key_variable = where.ref.key_variable(where.spec)
        self._client = ChatClient(where, timeout=timeout)

    def complete(self, call: ModelCall) -> ModelReply:
        body: dict = {"model": self.name, "messages": chat_messages(call), self.spec.max_tokens_field: call.max_tokens}
        if call.tools:
            body["tools"] = [{"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.input_schema}} for t in call.tools]
        reply = with_retries(lambda: self._client.create(body, deadline=time.monotonic() + self.timeout),
                             model=self.model, key_variable=self.key_variable, max_retries=self.max_retries)
        return self._reply(reply)

    def _reply(self, reply: ChatReply) -> ModelReply:
        choice = reply.first
        blocks: list = []
        if (choice.message.content or "").strip():
            blocks.append({"type": "text", "text": choice.message.content})
        cut_off = choice.finish_reason == "length"
        for tool_call in reply.calls:
            arguments = tool_call.function.arguments
            try:
                if isinstance(arguments, str) or arguments is None:  # JSON text, as OpenAI sends it
                    arguments = json.loads(arguments or "{}")
            except (ValueError, RecursionError):  # RecursionError: nested past what the parser follows
                if not cut_off:
                    raise ModelError(f"{self.model}: the model sent tool arguments that are not JSON: "
                                     f"{arguments!r:.200}") from None
                # the output limit cut the arguments' text: the loop answers the call as not run
            else:
                if not isinstance(arguments, dict):
                    raise ModelError(f"{self.model}: the model sent tool arguments that are not a JSON object: "
                                     f"{json.dumps(arguments)!r:.200}")
            blocks.append({"type": "tool_use", "id": tool_call.id or new_call_id(),
                           "name": tool_call.function.name, "input": arguments})
        stop = {"tool_calls": "tool_use", "stop": "end_turn", "length": "max_tokens"}.get(
            choice.finish_reason or "", choice.finish_reason)
        input_tokens, output_tokens = usage(reply)
        try:
            return ModelReply(content=blocks, stop_reason=stop,
                              usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens))
        except ValidationError as problem:
            raise ModelError(f"{self.model}: unreadable reply: {problem}") from None


R = TypeVar("R")


def with_retries(request: Callable[[], R], *, model: str, key_variable: str | None, max_retries: int) -> R:
    """One loop turn's request: transient faults (core/model_http.py) retried, never sooner than the
    server's retry-after (the loop has no retry policy of its own); the rest one ModelError naming the
    status and what to check."""
    for attempt in range(max_retries + 1):
        try:
            return request()
        except CallError as problem:
            wait = problem.retry_after if problem.retry_after is not None else 2.0 ** attempt
            if problem.transient and attempt < max_retries and wait <= RUN_RETRY_WAIT_SECONDS:
                time.sleep(wait)
                continue
            asked = ""
            if problem.transient and attempt < max_retries:  # the server's wait is past what a run waits
                shown = f"{wait:g} s" if math.isfinite(wait) else "for ever"
                asked = (f", and asked to wait {shown} before another try (a run waits at most "
                         f"{RUN_RETRY_WAIT_SECONDS:g} s), so it was not retried")
            raise ModelError(f"{model}: {problem}{asked}{auth_hint(problem.status, key_variable)}") from None
    raise AssertionError("unreachable")


def chat_messages(call: ModelCall) -> list[dict]:
    """The loop's conversation as Chat Completions messages (tool results become `role: tool` messages,
    which must directly follow the assistant message that made the calls)."""
    out: list[dict] = [{"role": "system", "content": call.system}] if call.system else []
    for message in call.messages:
        texts = [b.text for b in message.content if isinstance(b, TextBlock)]
        if message.role == "assistant":
            uses = [b for b in message.content if isinstance(b, ToolUseBlock)]
            entry: dict = {"role": "assistant", "content": "\n".join(texts) or None}
            if uses:
                entry["tool_calls"] = [{"id": b.id, "type": "function", "function": {
                    "name": b.name, "arguments": json.dumps(b.input)}} for b in uses]
            out.append(entry)
            continue
        for block in message.content:
            if isinstance(block, ToolResultBlock):  # no is_error field in this API: say it in the content
                content = f"Error: {block.content}" if block.is_error else block.content
                out.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": content})
        if texts:
            out.append({"role": "user", "content": "\n".join(texts)})
    return out


def model_ref(model: str) -> ModelRef:
    """The run's model string parsed, or one line saying how to write it."""
    try:
        return ModelRef.parse(model)
    except ModelRefError:
        raise AgentuseError(
            f"model {model!r} is not one agentuse can run: write it as provider:model "
            "(e.g. anthropic:claude-sonnet-5, openai:gpt-5.5, ollama:qwen3.5:0.8b) or replay:<session-file>"
        ) from None


def provider_for(
    model: str, *, env: Mapping[str, str] | None = None, base_dir: Path | None = None, replay_skip: int = 0
) -> Provider:
    """The provider for a `provider:model` string; a missing key is one message naming the variable."""
    env = os.environ if env is None else env
    ref = model_ref(model)
    if ref.provider == "replay":
        path = Path(ref.model).expanduser()
        if not path.is_absolute() and not path.exists() and base_dir is not None and (base_dir / path).exists():
            path = base_dir / path  # a path written relative to the agent file
        return ReplayProvider(path, skip=replay_skip, model=model)
    try:
        where = endpoint(ref, env)
    except ModelRefError as problem:
        raise AgentuseError(f"model {model!r} is not one agentuse can run: {problem}") from None
    if where.spec.family not in RUN_FAMILIES:
        raise AgentuseError(f'model {model!r}: agent runs on the "{ref.provider}" provider are not implemented '
                            "here; use anthropic:, openai:, openrouter:, bedrock:, ollama:, lmstudio: or a custom endpoint")
    problem = url_problem(where, env)
    if problem:
        raise AgentuseError(f"model {model!r} cannot be called: {problem}")
    variable = missing_key(ref, where.spec, env)
    if variable:
        raise MissingKeyError(
            f"{variable} is not set: the model {model} needs it. Set {variable}, "
            "or run a recorded session offline with --model replay:<session-file>"
        )
    if where.spec.family is Family.bedrock:
        from agentuse.runtime.bedrock import BedrockProvider  # botocore: only runs on Bedrock pay for it

        return BedrockProvider(where)
    if where.spec.family is Family.anthropic:
        return AnthropicProvider(ref.model, api_key=where.api_key or "", base_url=where.base_url,
                                 key_variable=ref.key_variable(where.spec))
    return OpenAIChatProvider(where)
