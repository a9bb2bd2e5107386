"""Which helper serves a command: the provider's implementation when its key is set, else the embedded
offline evaluator, which says so once.

    helper = resolve_helper(agent.helper_model, announce=once(console.print))

`once(print)` wraps a printer so a command that resolves several helpers (capture, then tidy) prints
the offline notice a single time. Tests inject a scripted helper with `override_helper(...)`.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Callable, Iterator, Mapping, Union

from agentuse.core.helper.protocol import Helper

OFFLINE = "offline"
# Provider -> the environment variable holding its key. Only providers with an implementation are listed.
KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY"}
BASE_URL_VARIABLES = {"anthropic": "ANTHROPIC_BASE_URL"}

HelperSource = Union[Helper, Callable[[Union[str, None]], Helper]]
_override: HelperSource | None = None


def split_model(model: str) -> tuple[str, str]:
    """`anthropic:claude-sonnet-5` -> ("anthropic", "claude-sonnet-5"); a bare Claude name is anthropic."""
    if ":" in model:
        provider, name = model.split(":", 1)
        return provider.strip().lower(), name.strip()
    return ("anthropic" if model.startswith("claude") else model.lower()), model


def offline_reason(model: str | None, env: Mapping[str, str]) -> str | None:
    """Why helper calls for `model` would run offline, or None when a provider implementation serves."""
    if model is None or not model.strip():
        return "no model is configured for helper calls"
    provider, _ = split_model(model)
    if provider == OFFLINE:
        return None  # chosen on purpose: not a fallback
    variable = KEY_VARIABLES.get(provider)
    if variable is None:
        return f'the "{provider}" provider has no helper implementation here'
    if not env.get(variable, "").strip():
        return f"{variable} is not set for {model}"
    return None


def runs_offline(model: str | None, env: Mapping[str, str] | None = None) -> bool | None:
    """Whether `resolve_helper(model)` would give the offline evaluator, known without building a helper;
    None under a test override (only the helper it builds can say)."""
    if _override is not None:
        return None
    provider = split_model(model)[0] if model else OFFLINE
    return provider == OFFLINE or offline_reason(model, os.environ if env is None else env) is not None


def resolve_helper(model: str | None, *, env: Mapping[str, str] | None = None,
                   announce: Callable[[str], None] | None = None) -> Helper:
    env = os.environ if env is None else env
    if _override is not None:
        return _override(model) if callable(_override) and not isinstance(_override, Helper) else _override
    provider = split_model(model)[0] if model else OFFLINE
    reason = offline_reason(model, env)
    if provider == OFFLINE or reason is not None:
        from agentuse.core.helper.offline import OfflineHelper

        if announce is not None:
            if reason is None:  # chosen on purpose (model: offline)
                announce("Helper calls run on the embedded offline evaluator (model: offline).")
            else:
                announce(f"Helper calls run on the embedded offline evaluator: {reason}.")
        return OfflineHelper()
    from agentuse.core.helper.anthropic import AnthropicHelper  # imports the SDK: only when it is used
    from agentuse.core.helper.deadline import Limits

    return AnthropicHelper(model, api_key=env[KEY_VARIABLES[provider]],
                           base_url=env.get(BASE_URL_VARIABLES[provider]) or None, limits=Limits.from_env(env))


def once(announce: Callable[[str], None]) -> Callable[[str], None]:
    """A printer that forwards each distinct message only the first time (one notice per command)."""
    seen: set[str] = set()

    def forward(message: str) -> None:
        if message not in seen:
            seen.add(message)
            announce(message)

    return forward


# --- test hook -------------------------------------------------------------------------------------------


def set_override(source: HelperSource | None) -> None:
    """Make every `resolve_helper` return `source` (a helper, or a function of the model string)."""
    global _override
    _override = source


@contextmanager
def override_helper(source: HelperSource) -> Iterator[HelperSource]:
    previous = _override
    set_override(source)
    try:
        yield source
    finally:
        set_override(previous)
