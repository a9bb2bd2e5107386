"""Model strings and the providers behind them: one parser and one table for agent runs and helper calls.

    ref = ModelRef.parse("ollama:qwen3.5:0.8b")   # provider "ollama", model "qwen3.5:0.8b"
    spec = provider_spec(ref.provider, env)      # key/base-URL variables, default URL, protocol family

`provider:model`, as upstream AgentUse writes it. Everything after the first colon is the model name,
colons included. An optional trailing `:<suffix>` picks another key variable
(`anthropic:claude-sonnet-5:dev` reads ANTHROPIC_API_KEY_DEV), but only for providers whose model names
never contain a colon (anthropic, openai, openrouter). For ollama, lmstudio, bedrock (`...-v1:0`) and custom
endpoints the colon belongs to the model name: `ollama:qwen3.5:0.8b` is the model `qwen3.5:0.8b`.
OpenRouter's own variant tags (`:free`, `:nitro`, ...) are model names too, never key suffixes.

A provider not in the table is a custom OpenAI-compatible endpoint when `<NAME>_BASE_URL` is set
(uppercased, `-` and `.` as `_`); its key, if it needs one, is `<NAME>_API_KEY`. One registered with
`agentuse provider add NAME --url URL [--key-env VAR]` needs no variable (core/provider_config.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from urllib.parse import quote, urlsplit
from enum import Enum

from agentuse.core.errors import AgentuseError


class Family(str, Enum):
    """The wire protocol a provider speaks."""

    anthropic = "anthropic"  # the Messages API
    openai_chat = "openai-chat"  # Chat Completions: OpenAI and every compatible server
    bedrock = "bedrock"  # Amazon Bedrock's Converse API, signed by the AWS credential chain (core/bedrock.py)
    replay = "replay"  # a recorded session played back (agent runs only)
    offline = "offline"  # the embedded offline evaluator (helper calls only)


# ProviderSpec, ModelRef and Endpoint are plain frozen values: the table below, what `ModelRef.parse` reads
# from a model string, and what the environment says; no outside data is validated into them.
@dataclass(frozen=True)
class ProviderSpec:
    name: str
    family: Family
    key_variable: str | None = None  # None: no key at all (replay, offline, bedrock's AWS chain)
    key_required: bool = True  # local servers take a key when one is set, but need none
    base_url_variable: str | None = None
    default_url: str | None = None  # None with a base-URL variable: the SDK's own default
    forced_tools: bool = True  # honours `tool_choice` naming one function; else a JSON-schema response format
    key_suffix: bool = False  # model names never hold a colon, so a trailing `:<suffix>` names a key variant
    # OpenAI's reasoning models refuse `max_tokens`; compatible servers (Ollama, vLLM) know only it.
    max_tokens_field: str = "max_tokens"

    @property
    def local(self) -> bool:
        return not self.key_required


PROVIDERS: dict[str, ProviderSpec] = {spec.name: spec for spec in (
    ProviderSpec(name="anthropic", family=Family.anthropic, key_variable="ANTHROPIC_API_KEY",
                 base_url_variable="ANTHROPIC_BASE_URL", key_suffix=True),
    ProviderSpec(name="openai", family=Family.openai_chat, key_variable="OPENAI_API_KEY",
                 base_url_variable="OPENAI_BASE_URL", default_url="https://api.openai.com/v1", key_suffix=True,
                 max_tokens_field="max_completion_tokens"),
    ProviderSpec(name="openrouter", family=Family.openai_chat, key_variable="OPENROUTER_API_KEY",
                 base_url_variable="OPENROUTER_BASE_URL", default_url="https://openrouter.ai/api/v1",
                 key_suffix=True),
    # Ollama and LM Studio accept `tools` but do not reliably honour a `tool_choice` that names one
    # function; both honour a JSON-schema response format, so helper answers are asked for that way.
    ProviderSpec(name="ollama", family=Family.openai_chat, key_variable="OLLAMA_API_KEY", key_required=False,
                 base_url_variable="OLLAMA_BASE_URL", default_url="http://localhost:11434/v1", forced_tools=False),
    ProviderSpec(name="lmstudio", family=Family.openai_chat, key_variable="LMSTUDIO_API_KEY", key_required=False,
                 base_url_variable="LMSTUDIO_BASE_URL", default_url="http://localhost:1234/v1", forced_tools=False),
    # No key variable: the standard AWS credential chain (core/bedrock.py). The endpoint variable is
    # botocore's own, read here too so doctor and `provider list` can show it.
    ProviderSpec(name="bedrock", family=Family.bedrock, key_required=False,
                 base_url_variable="AWS_ENDPOINT_URL_BEDROCK_RUNTIME"),
    ProviderSpec(name="replay", family=Family.replay, key_required=False),
    ProviderSpec(name="offline", family=Family.offline, key_required=False),
)}

# OpenRouter routing variants (`meta-llama/llama-3-8b-instruct:free`): part of the model name.
_OPENROUTER_VARIANTS = {"free", "nitro", "floor", "online", "thinking", "extended", "beta", "exacto"}
_PROVIDER = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_SUFFIX = re.compile(r"^[a-z0-9_]+$", re.IGNORECASE)
EXAMPLE = "anthropic:claude-sonnet-5"


class ModelRefError(AgentuseError, ValueError):
    """A model string that is not `provider:model` (a ValueError too, so pydantic validators report it)."""


@dataclass(frozen=True)
class ModelRef:
    provider: str
    model: str
    key_suffix: str | None = None

    @classmethod
    def parse(cls, text: str) -> "ModelRef":
        provider, sep, rest = text.strip().partition(":")
        provider = provider.strip().lower()
        rest = rest.strip()
        # A space in a model name is a typo; a recording's file path may hold one (a checkout at "ci work/").
        spaced = provider != Family.replay.value and any(c.isspace() for c in rest)
        if not sep or not rest or not _PROVIDER.match(provider) or spaced:
            raise ModelRefError(f'must be "provider:model", e.g. {EXAMPLE} (got "{text}")')
        model, suffix = rest, None
        spec = PROVIDERS.get(provider)
        if spec is not None and spec.key_suffix and ":" in rest:
            head, _, tail = rest.rpartition(":")
            variant = provider == "openrouter" and tail.lower() in _OPENROUTER_VARIANTS
            if head and _SUFFIX.match(tail) and not variant:
                model, suffix = head, tail
        return cls(provider=provider, model=model, key_suffix=suffix)

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}" + (f":{self.key_suffix}" if self.key_suffix else "")

    def key_variable(self, spec: ProviderSpec) -> str | None:
        if spec.key_variable is None:
            return None
        return f"{spec.key_variable}_{self.key_suffix.upper()}" if self.key_suffix else spec.key_variable


def _env_name(provider: str) -> str:
    return re.sub(r"[^A-Z0-9]", "_", provider.upper())


def provider_spec(provider: str, env: Mapping[str, str]) -> ProviderSpec | None:
    """The table's entry; else a custom OpenAI-compatible endpoint named by `<NAME>_BASE_URL` or registered
    with `agentuse provider add` (core/provider_config.py; the variable wins); else None."""
    spec = PROVIDERS.get(provider)
    if spec is not None:
        return spec
    name = _env_name(provider)
    custom = ProviderSpec(name=provider, family=Family.openai_chat, key_variable=f"{name}_API_KEY",
                          key_required=False, base_url_variable=f"{name}_BASE_URL")
    if (env.get(f"{name}_BASE_URL") or "").strip():
        return custom
    from agentuse.core import provider_config  # a file read: only for a provider the table does not know

    entry = provider_config.find(provider)
    if entry is None:
        return None
    update = {"default_url": entry.url}
    if entry.key_env:  # registered as needing a key: a missing one is named like any other
        update |= {"key_variable": entry.key_env, "key_required": True}
    return replace(custom, **update)


def unknown_provider(provider: str) -> str:
    known = ", ".join(n for n in PROVIDERS if n not in ("offline",))
    return (f'the "{provider}" provider is not one agentuse knows ({known}); for an OpenAI-compatible '
            f"endpoint set {_env_name(provider)}_BASE_URL or run agentuse provider add {provider} --url URL")


@dataclass(frozen=True)
class Endpoint:
    """Where and with what key to call a provider, read from the environment."""

    spec: ProviderSpec
    ref: ModelRef
    api_key: str | None = None
    base_url: str | None = None


def missing_key(ref: ModelRef, spec: ProviderSpec, env: Mapping[str, str]) -> str | None:
    """The variable that must be set for `ref` and is not, or None."""
    variable = ref.key_variable(spec)
    if variable is None or not spec.key_required:
        return None
    return None if (env.get(variable) or "").strip() else variable


def endpoint(ref: ModelRef, env: Mapping[str, str]) -> Endpoint:
    """The endpoint for `ref`; raises `ModelRefError` for an unknown provider. Does not check the key."""
    spec = provider_spec(ref.provider, env)
    if spec is None:
        raise ModelRefError(unknown_provider(ref.provider))
    variable = ref.key_variable(spec)
    key = (env.get(variable) or "").strip() if variable else ""
    url = (env.get(spec.base_url_variable) or "").strip() if spec.base_url_variable else ""
    return Endpoint(spec=spec, ref=ref, api_key=key or None, base_url=url or spec.default_url)


# The path each family appends to its base URL: a base that already ends in it would be asked twice over.
_APPENDED = {Family.openai_chat: "/chat/completions", Family.anthropic: "/v1/messages", Family.bedrock: "/converse"}


def base_url_problem(url: str, *, setting: str, family: Family, key_advice: str) -> str | None:
    """What is wrong with a base URL the user set (`setting` names where, "" for a command's own --url), in
    one line saying what to write instead; None when it is an http(s) URL a request can go to as it is.
    Refused: no scheme or another one (file://, ftp://), no host, a user or password in it (a URL is shown
    in errors, doctor and provider list; the key has a variable of its own), a query or fragment (the
    request path lands before it), and a base that already ends in the path agentuse appends. `key_advice`
    says where the key goes instead of the URL. The URL is quoted only once known to hold no credential."""
    name = setting or "the URL"
    authority = re.sub(r"^[A-Za-z][\w+.-]*://", "", url).split("/")[0].split("?")[0].split("#")[0]
    if "@" in authority:
        return f"{name} holds a user name or password: remove it from the URL and {key_advice}"
    quoted = f"{setting}={url!r}" if setting else repr(url)
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port  # a port that is not a number raises here
    except ValueError:
        parts, host = None, None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not host:
        return (f"{quoted} is not an http(s) URL with a host: write it as e.g. http://localhost:8000/v1 or "
                "https://api.example.com")
    if parts.query or parts.fragment or url.rstrip().endswith(("?", "#")):
        return f"{quoted} has a query or fragment, which the request path would land before: remove it"
    suffix = _APPENDED.get(family)
    if suffix and parts.path.rstrip("/").lower().endswith(suffix):
        base = url.rstrip("/")[:-len(suffix)]
        return f"{name} ends in {suffix}, which agentuse appends itself: set it to {base}"
    return None


def url_problem(where: Endpoint, env: Mapping[str, str]) -> str | None:
    """`base_url_problem` for the base URL a variable in `env` sets (a providers-file entry was checked when
    it was added, and the table's defaults are right)."""
    variable = where.spec.base_url_variable
    if not variable or not (env.get(variable) or "").strip():
        return None
    key = where.ref.key_variable(where.spec)
    advice = (f"set the key in {key}" if key else "let the AWS credential chain sign the requests (AWS_PROFILE, "
              "AWS_ACCESS_KEY_ID, ...)" if where.spec.family is Family.bedrock else "drop the credential")
    return base_url_problem(where.base_url or "", setting=variable, family=where.spec.family, key_advice=advice)


def request_url(where: Endpoint, region: str | None = None) -> str | None:
    """The URL a model request for `where` goes to (the Chat Completions client posts there, doctor shows
    it); None where only an SDK knows (Anthropic's default, Bedrock with no region nor endpoint)."""
    base = (where.base_url or "").rstrip("/")
    if where.spec.family is Family.openai_chat:
        return f"{base}/chat/completions"
    if where.spec.family is Family.anthropic:
        return f"{base}/v1/messages" if base else None
    if where.spec.family is Family.bedrock:
        base = base or bedrock_endpoint(region)
        return f"{base}/model/{quote(where.ref.model, safe='')}/converse" if base else None
    return None


def bedrock_endpoint(region: str | None) -> str:
    """Bedrock Runtime's public endpoint in `region` ("" with no region)."""
    return f"https://bedrock-runtime.{region}.amazonaws.com" if region else ""
