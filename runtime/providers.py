"""Model providers behind one small protocol, chosen by the `provider:model` string.

- `anthropic:<model>`: the Messages API through the anthropic SDK (imported only when used, it costs
  ~1.3 s). ANTHROPIC_API_KEY is required; ANTHROPIC_BASE_URL is honoured (the tests' fake server).
- `replay:<session-file>`: plays back the model replies recorded in a session log, in order, so examples,
  the demo and tests run the real loop — tools included — with no key and no network.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from agentuse.core.errors import AgentuseError
from agentuse.runtime.events import ModelReplyEvent
from agentuse.runtime.messages import ModelCall, ModelReply, Usage
from agentuse.runtime.session import SessionError, read_events

ANTHROPIC_KEY = "ANTHROPIC_API_KEY"
ANTHROPIC_BASE_URL = "ANTHROPIC_BASE_URL"
PROVIDERS = ("anthropic", "replay")


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
    def __init__(self, name: str, *, api_key: str, base_url: str | None = None, max_retries: int = 2) -> None:
        import anthropic  # lazily: only runs that talk to Anthropic pay for the import

        self.model = f"anthropic:{name}"
        self.name = name
        self._anthropic = anthropic
        self._client = anthropic.Anthropic(api_key=api_key, base_url=base_url or None, max_retries=max_retries)

    def complete(self, call: ModelCall) -> ModelReply:
        errors = self._anthropic
        try:
            message = self._client.messages.create(
                model=self.name,
                max_tokens=call.max_tokens,
                system=call.system,
                messages=[m.model_dump(mode="json") for m in call.messages],
                tools=[t.model_dump(mode="json") for t in call.tools],
            )
        except errors.APIStatusError as problem:
            raise ModelError(f"{self.model}: the API answered {problem.status_code}: {_api_message(problem)}") from None
        except errors.APIConnectionError as problem:
            raise ModelError(f"{self.model}: could not reach the API: {problem}") from None
        # Only the block kinds the loop understands are kept (thinking blocks etc. are not replayable here).
        blocks = [b.model_dump(mode="json") for b in message.content if b.type in ("text", "tool_use")]
        try:
            return ModelReply(
                content=[{k: v for k, v in b.items() if k in ("type", "text", "id", "name", "input")} for b in blocks],
                stop_reason=message.stop_reason,
                usage=Usage(input_tokens=message.usage.input_tokens, output_tokens=message.usage.output_tokens),
            )
        except ValidationError as problem:
            raise ModelError(f"{self.model}: unreadable reply: {problem}") from None


def _api_message(problem: Exception) -> str:
    body = getattr(problem, "body", None)
    if isinstance(body, dict):
        detail = body.get("error") if isinstance(body.get("error"), dict) else body
        if isinstance(detail, dict) and detail.get("message"):
            return str(detail["message"])
    return str(problem)


def split_model(model: str) -> tuple[str, str]:
    provider, sep, name = model.partition(":")
    if not sep or not name or provider not in PROVIDERS:
        raise AgentuseError(
            f"model {model!r} is not one agentuse can run: write it as anthropic:<model> "
            "(e.g. anthropic:claude-sonnet-5) or replay:<session-file>"
        )
    return provider, name


def provider_for(
    model: str, *, env: Mapping[str, str] | None = None, base_dir: Path | None = None, replay_skip: int = 0
) -> Provider:
    """The provider for a `provider:model` string; a missing key is one message naming the variable."""
    env = os.environ if env is None else env
    provider, name = split_model(model)
    if provider == "replay":
        path = Path(name).expanduser()
        if not path.is_absolute() and not path.exists() and base_dir is not None and (base_dir / path).exists():
            path = base_dir / path  # a path written relative to the agent file
        return ReplayProvider(path, skip=replay_skip, model=model)
    key = env.get(ANTHROPIC_KEY, "").strip()
    if not key:
        raise MissingKeyError(
            f"{ANTHROPIC_KEY} is not set: the model {model} needs it. Set {ANTHROPIC_KEY}, "
            "or run a recorded session offline with --model replay:<session-file>"
        )
    return AnthropicProvider(name, api_key=key, base_url=env.get(ANTHROPIC_BASE_URL))
