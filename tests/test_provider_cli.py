"""`agentuse provider add|list|remove`: a registered endpoint serves runs and helper calls; no key is ever
written to the config file."""

from __future__ import annotations

import json
import re

import pytest
from fakes import text

from agentuse.core import provider_config
from agentuse.core.helper.factory import offline_reason


def test_add_list_use_and_remove(tmp_path, fake_openai, monkeypatch, invoke):
    added = invoke("provider", "add", "my-vllm", "--url", f"{fake_openai.url}/v1/", "--key-env", "VLLM_TOKEN")
    assert added.stdout.startswith(f"Added my-vllm: {fake_openai.url}/v1, key from $VLLM_TOKEN (")
    saved = json.loads(provider_config.config_path().read_text())
    assert saved == {"providers": [{"name": "my-vllm", "url": f"{fake_openai.url}/v1", "key_env": "VLLM_TOKEN"}]}
    listing = invoke("provider", "list").stdout.splitlines()
    assert "openai: https://api.openai.com/v1, OPENAI_API_KEY not set" in listing
    assert "ollama: http://localhost:11434/v1, OLLAMA_API_KEY not needed" in listing
    assert f"my-vllm (custom): {fake_openai.url}/v1, VLLM_TOKEN not set" in listing

    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nmodel: my-vllm:llama:8b\n---\n\nSay hi.\n")
    missing = invoke("run", agent, "go", code=1)
    assert missing.stderr.startswith("error: VLLM_TOKEN is not set: the model my-vllm:llama:8b needs it.")
    assert offline_reason("my-vllm:llama:8b", {}) == "VLLM_TOKEN is not set for my-vllm:llama:8b"
    monkeypatch.setenv("VLLM_TOKEN", "tok-1")
    fake_openai.script(text("hi"))
    assert invoke("run", agent, "go").stdout.startswith("hi\n")
    [req] = fake_openai.requests
    assert (req.path, req.body["model"], req.headers["authorization"]) == ("/v1/chat/completions", "llama:8b", "Bearer tok-1")
    assert "tok-1" not in provider_config.config_path().read_text()

    assert invoke("provider", "remove", "my-vllm").stdout.startswith("Removed my-vllm")
    assert offline_reason("my-vllm:llama:8b", {}).startswith('the "my-vllm" provider is not one agentuse knows')
    gone = invoke("provider", "remove", "my-vllm", code=1)
    assert gone.stderr == 'error: no custom provider "my-vllm" is registered (agentuse provider list shows them)\n'


@pytest.mark.parametrize("args, line", [
    (["openai", "--url", "http://x/v1"], 'error: "openai" is a built-in provider: to point it elsewhere set OPENAI_BASE_URL'),
    (["gpu", "--url", "localhost:8000"], "error: 'localhost:8000' is not an http(s) URL"),
    (["gpu", "--url", "http://gpu/v1", "--key-env", "sk-live-abc123"], "error: --key-env takes the name of an environment variable"),
    (["GPU box", "--url", "http://gpu/v1"], "error: 'GPU box' is not a provider name"),
])
def test_add_refuses_in_one_line(invoke, args, line):
    result = invoke("provider", "add", *args, code=1)
    assert result.stderr.startswith(line) and len(result.stderr.splitlines()) == 1, result.stderr
    assert not provider_config.config_path().exists()


def test_an_unreadable_providers_file_is_one_line(invoke):
    path = provider_config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")
    result = invoke("provider", "list", code=1)
    assert re.match(rf"error: {re.escape(str(path))} is not a providers file agentuse can read \(.*\): fix or delete it\n$",
                    result.stderr)


@pytest.mark.parametrize("env, line", [
    ({}, "bedrock: the region's endpoint (AWS_REGION not set), no AWS credentials found"),
    ({"AWS_DEFAULT_REGION": "us-west-2", "AWS_ACCESS_KEY_ID": "AKIA"},
     "bedrock: https://bedrock-runtime.us-west-2.amazonaws.com, AWS credentials from AWS_ACCESS_KEY_ID"),
])
def test_list_says_where_bedrock_calls_and_whose_credentials(monkeypatch, invoke, env, line):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert line in invoke("provider", "list").stdout.splitlines()


@pytest.mark.parametrize("given", ["conf", "./conf", "~nosuchuser-x/conf"])
def test_a_relative_config_dir_is_refused_in_one_line(invoke, monkeypatch, tmp_path, given):
    # A relative setting would find a different providers file in each folder a command is run from.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTUSE_CONFIG_DIR", given)
    result = invoke("provider", "add", "gpu", "--url", "http://gpu/v1", code=1)
    assert result.stderr.startswith("error: AGENTUSE_CONFIG_DIR must be an absolute path, not ")
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert not any(tmp_path.iterdir())  # nothing written where it pointed


def test_a_relative_xdg_config_home_is_ignored(monkeypatch, tmp_path):
    monkeypatch.delenv("AGENTUSE_CONFIG_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/config")  # the XDG spec says to ignore relative values
    assert provider_config.config_path() == tmp_path / ".config" / "agentuse" / "providers.json"


def test_a_config_dir_with_a_tilde_is_expanded(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AGENTUSE_CONFIG_DIR", "~/cfg")
    assert provider_config.config_path() == tmp_path / "cfg" / "providers.json"
