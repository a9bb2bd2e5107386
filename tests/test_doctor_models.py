"""`agentuse doctor` on the model an agent runs and judges with: the provider, the URL it will call for a
local or custom endpoint, whether its key (or AWS credentials) is set, and which judge runs."""

from __future__ import annotations

import pytest

AGENT = """---
model: {model}
learning:
  apply: true
  model: "{helper}"
---

# Blog Writer

Write short posts.
"""


def doctor_lines(tmp_path, invoke, model: str, helper: str) -> list[str]:
    agent = tmp_path / "blog.agentuse"
    agent.write_text(AGENT.format(model=model, helper=helper))
    return [line.strip() for line in invoke("doctor", agent).stdout.splitlines()]


def test_a_local_helper_shows_the_url_it_will_call(tmp_path, invoke):
    lines = doctor_lines(tmp_path, invoke, "anthropic:claude-test", "ollama:qwen3.5:0.8b")
    assert ("helper model: ollama:qwen3.5:0.8b (provider ollama, calls "
            "http://localhost:11434/v1/chat/completions, no key needed)") in lines
    assert "judge: the model ollama:qwen3.5:0.8b" in lines


def test_a_base_url_variable_moves_the_url(tmp_path, invoke, monkeypatch):
    monkeypatch.setenv("LMSTUDIO_BASE_URL", "http://127.0.0.1:9999/v1/")
    lines = doctor_lines(tmp_path, invoke, "anthropic:claude-test", "lmstudio:qwen/qwen3-4b")
    assert ("helper model: lmstudio:qwen/qwen3-4b (provider lmstudio, calls "
            "http://127.0.0.1:9999/v1/chat/completions, no key needed)") in lines


def test_a_registered_endpoint_shows_its_url_and_its_missing_key(tmp_path, invoke):
    invoke("provider", "add", "gpu", "--url", "http://gpu-box:8000/v1", "--key-env", "GPU_TOKEN")
    lines = doctor_lines(tmp_path, invoke, "anthropic:claude-test", "gpu:llama-3-8b")
    assert ("helper model: gpu:llama-3-8b (provider gpu, custom, calls http://gpu-box:8000/v1/chat/completions, "
            "GPU_TOKEN is not set: helper calls fall back to the embedded offline evaluator)") in lines
    # The agent's own model is what runs need: only its line says so (a helper key is never needed by a run).
    assert not any("runs need it" in line for line in lines if line.startswith("  helper model:"))
    assert "judge: the embedded offline evaluator (GPU_TOKEN is not set for gpu:llama-3-8b)" in lines


def test_a_public_provider_names_its_key_set_or_not(tmp_path, invoke, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    lines = doctor_lines(tmp_path, invoke, "openai:gpt-5.5", "openai:gpt-5.5")
    assert "model: openai:gpt-5.5 (provider openai, OPENAI_API_KEY set)" in lines


@pytest.mark.parametrize("env, note, judge", [
    ({"AWS_PROFILE": "work", "AWS_REGION": "eu-west-3"},
     "provider bedrock, calls https://bedrock-runtime.eu-west-3.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse, "
     "AWS credentials from AWS_PROFILE", "the model bedrock:amazon.nova-pro-v1:0"),
    ({"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": "http://127.0.0.1:4566"},
     "provider bedrock, calls http://127.0.0.1:4566/model/amazon.nova-pro-v1%3A0/converse, "
     "no AWS credentials found", "the embedded offline evaluator (no AWS credentials found"),
])
def test_bedrock_shows_its_endpoint_and_where_credentials_come_from(tmp_path, invoke, monkeypatch, env, note, judge):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    lines = doctor_lines(tmp_path, invoke, "anthropic:claude-test", "bedrock:amazon.nova-pro-v1:0")
    [helper] = [line for line in lines if line.startswith("helper model:")]
    assert helper.startswith(f"helper model: bedrock:amazon.nova-pro-v1:0 ({note}")
    [line] = [line for line in lines if line.startswith("judge:")]
    assert line.startswith(f"judge: {judge}")
