"""Which helper serves a command: the provider's implementation when its key is set, else the embedded
offline evaluator, which says so once.

    helper = resolve_helper(agent.helper_model, announce=once(console.print))

`once(print)` wraps a printer so a command that resolves several helpers (capture, then tidy) prints
the offline notice a single time. Tests inject a scripted helper with `override_helper(...)`.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator, Mapping, Union

from agentuse.core.models import (Family, ModelRef, ModelRefError, endpoint, missing_key, provider_spec, unknown_provider,
                                  url_problem)

if TYPE_CHECKING:  # the protocol's pydantic models cost ~10 ms: doctor asks offline_reason without them
    from agentuse.core.helper.protocol import Helper

OFFLINE = "offline"

HelperSource = Union["Helper", Callable[[Union[str, None]], "Helper"]]
_override: HelperSource | None = None


def offline_reason(model: str | None, env: Mapping[str, str], *, probe: bool = False) -> str | None:
    """Why helper calls for `model` would run offline, or None when a provider implementation serves.
    Judged from the environment alone, except with `probe` (a command about to make the calls): then a
    Bedrock model with no credentials named anywhere asks the metadata service for a role's."""
    if model is None or not model.strip():
        return "no model is configured for helper calls"
    try:
        ref = ModelRef.parse(model)
    except ModelRefError as problem:
        return f"the helper model {problem}"
    spec = provider_spec(ref.provider, env)
    if spec is None:
        return unknown_provider(ref.provider)
    if spec.family is Family.offline:
        return None  # chosen on purpose: not a fallback
    problem = url_problem(endpoint(ref, env), env)
    if problem:
        return problem
    if spec.family is Family.bedrock:
        return _bedrock_reason(model, env, probe=probe)
    if spec.family not in (Family.anthropic, Family.openai_chat):
        return f'the "{ref.provider}" provider has no helper implementation here'
    variable = missing_key(ref, spec, env)
    return None if variable is None else f"{variable} is not set for {model}"


def _bedrock_reason(model: str, env: Mapping[str, str], *, probe: bool) -> str | None:
    """Known without importing botocore or asking the network (core/bedrock.credential_source), unless
    `probe`: an instance or container role is known only to the metadata service (asked through botocore,
    which reads the process environment, as the Converse client it would build does)."""
    from agentuse.core import bedrock

    if not bedrock.installed():
        return f"botocore is not installed for {model} ({bedrock.EXTRA})"
    if bedrock.credential_source(env) or (probe and bedrock.role_credentials()):
        return None
    return bedrock.missing_credentials(model)


def runs_offline(model: str | None, env: Mapping[str, str] | None = None) -> bool | None:
    """Whether `resolve_helper(model)` would give the offline evaluator, known without building a helper;
    None under a test override (only the helper it builds can say)."""
    if _override is not None:
        return None
    if not model:
        return True
    try:
        if ModelRef.parse(model).provider == OFFLINE:
            return True
    except ModelRefError:
        return True
    return offline_reason(model, os.environ if env is None else env) is not None


def resolve_helper(model: str | None, *, env: Mapping[str, str] | None = None,
                   announce: Callable[[str], None] | None = None) -> Helper:
    from agentuse.core.helper.protocol import Helper

    env = os.environ if env is None else env
    if _override is not None:
        return _override(model) if callable(_override) and not isinstance(_override, Helper) else _override
    reason = offline_reason(model, env, probe=True)  # the calls are about to be made
    ref = ModelRef.parse(model) if reason is None and model else None
    if ref is None or ref.provider == OFFLINE:
        from agentuse.core.helper.offline import OfflineHelper

        if announce is not None:
            if reason is None:  # chosen on purpose (model: offline)
                announce("Helper calls run on the embedded offline evaluator (model: offline).")
            else:
                announce(f"Helper calls run on the embedded offline evaluator: {reason}.")
        return OfflineHelper()
    from agentuse.core.helper.deadline import Limits

    where = endpoint(ref, env)
    if where.spec.family is Family.anthropic:
        from agentuse.core.helper.anthropic import AnthropicHelper  # imports the SDK: only when it is used

        return AnthropicHelper(f"anthropic:{ref.model}", api_key=where.api_key or "", base_url=where.base_url,
                               limits=Limits.from_env(env), key_variable=ref.key_variable(where.spec) or "")
    if where.spec.family is Family.bedrock:
        from agentuse.core.helper.bedrock import BedrockHelper  # imports botocore: only when it is used

        return BedrockHelper(where, limits=Limits.from_env(env))
    from agentuse.core.helper.openai_compat import OpenAICompatHelper

    return OpenAICompatHelper(where, limits=Limits.from_env(env))


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
