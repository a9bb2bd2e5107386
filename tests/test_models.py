"""One model-string parser and one provider table for runs and helper calls (core/models.py)."""

from __future__ import annotations

import pytest

from agentuse.core.agent_config import check_model
from agentuse.core.helper.factory import offline_reason
from agentuse.core.models import Family, ModelRef, ModelRefError, endpoint, missing_key, provider_spec


@pytest.mark.parametrize("text, provider, model, suffix", [
    ("anthropic:claude-sonnet-5", "anthropic", "claude-sonnet-5", None),
    ("anthropic:claude-sonnet-5:dev", "anthropic", "claude-sonnet-5", "dev"),
    ("openai:gpt-5.5", "openai", "gpt-5.5", None),
    ("openai:gpt-5.5:team_b", "openai", "gpt-5.5", "team_b"),
    ("openrouter:z-ai/glm-5.2", "openrouter", "z-ai/glm-5.2", None),
    ("openrouter:z-ai/glm-5.2:work", "openrouter", "z-ai/glm-5.2", "work"),
    ("openrouter:meta-llama/llama-3-8b-instruct:free", "openrouter", "meta-llama/llama-3-8b-instruct:free", None),
    ("ollama:qwen3.5:0.8b", "ollama", "qwen3.5:0.8b", None),  # the colon is the model's
    ("ollama:qwen3.5", "ollama", "qwen3.5", None),
    ("lmstudio:qwen/qwen3-4b:q4", "lmstudio", "qwen/qwen3-4b:q4", None),
    ("bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0", None),
    ("vllm:meta/llama:8b", "vllm", "meta/llama:8b", None),  # custom endpoints: the colon is the model's
    ("replay:sessions/a:b.jsonl", "replay", "sessions/a:b.jsonl", None),
    ("OpenAI:gpt-5.5", "openai", "gpt-5.5", None),
])
def test_parse(text, provider, model, suffix):
    ref = ModelRef.parse(text)
    assert (ref.provider, ref.model, ref.key_suffix) == (provider, model, suffix)


@pytest.mark.parametrize("text", ["claude-sonnet-5", "openai:", ":gpt", "open ai:gpt", "openai:gpt 5", ""])
def test_not_a_model_string(text):
    with pytest.raises(ModelRefError, match='must be "provider:model"'):
        ModelRef.parse(text)
    with pytest.raises(ValueError):  # the agent-file validator reports it at the key
        check_model(text)


def test_key_variables_follow_the_suffix():
    assert ModelRef.parse("anthropic:claude-sonnet-5:dev").key_variable(provider_spec("anthropic", {})) == \
        "ANTHROPIC_API_KEY_DEV"
    assert ModelRef.parse("openrouter:x/y").key_variable(provider_spec("openrouter", {})) == "OPENROUTER_API_KEY"
    ref = ModelRef.parse("anthropic:claude-sonnet-5:dev")
    assert missing_key(ref, provider_spec("anthropic", {}), {"ANTHROPIC_API_KEY": "k"}) == "ANTHROPIC_API_KEY_DEV"
    assert missing_key(ref, provider_spec("anthropic", {}), {"ANTHROPIC_API_KEY_DEV": "k"}) is None


def test_local_and_custom_endpoints_need_no_key():
    ollama = endpoint(ModelRef.parse("ollama:qwen3.5:0.8b"), {})
    assert (ollama.base_url, ollama.api_key, ollama.spec.family) == ("http://localhost:11434/v1", None, Family.openai_chat)
    assert endpoint(ModelRef.parse("lmstudio:m"), {}).base_url == "http://localhost:1234/v1"
    assert endpoint(ModelRef.parse("ollama:m"), {"OLLAMA_BASE_URL": "http://box:1/v1"}).base_url == "http://box:1/v1"
    assert provider_spec("my-vllm", {}) is None
    custom = endpoint(ModelRef.parse("my-vllm:llama"), {"MY_VLLM_BASE_URL": "http://gpu:8000/v1", "MY_VLLM_API_KEY": "t"})
    assert (custom.base_url, custom.api_key, custom.spec.key_required) == ("http://gpu:8000/v1", "t", False)


NO_AWS_FILES = {"AWS_CONFIG_FILE": "/nonexistent/config", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/credentials"}


@pytest.mark.parametrize("model, env, reason", [
    ("openai:gpt-5.5", {}, "OPENAI_API_KEY is not set for openai:gpt-5.5"),
    ("openai:gpt-5.5", {"OPENAI_API_KEY": "k"}, None),
    ("openrouter:z-ai/glm-5.2", {}, "OPENROUTER_API_KEY is not set for openrouter:z-ai/glm-5.2"),
    ("anthropic:claude-sonnet-5:dev", {"ANTHROPIC_API_KEY": "k"},
     "ANTHROPIC_API_KEY_DEV is not set for anthropic:claude-sonnet-5:dev"),
    ("ollama:qwen3.5:0.8b", {}, None),
    ("lmstudio:m", {}, None),
    ("vllm:m", {}, 'the "vllm" provider is not one agentuse knows'),
    ("vllm:m", {"VLLM_BASE_URL": "http://127.0.0.1:9/v1"}, None),
    ("bedrock:amazon.nova-pro-v1:0", NO_AWS_FILES, "no AWS credentials found for bedrock:amazon.nova-pro-v1:0"),
    ("bedrock:amazon.nova-pro-v1:0", {**NO_AWS_FILES, "AWS_ACCESS_KEY_ID": "AKIA"}, None),
])
def test_which_helper_calls_run_offline_and_why(model, env, reason):
    got = offline_reason(model, env)
    assert got == reason if reason is None else got.startswith(reason)
