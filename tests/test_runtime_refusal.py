"""A model that stops its turn by refusing (Anthropic's stop_reason refusal, a Chat Completions
content_filter, Bedrock's guardrail_intervened / content_filtered) has not done the work: the run fails
saying so in one line. It completed, its empty or partial answer shown (and put to the reviewer at an
approval gate) as the output, and the post-run capture learned from it."""

from __future__ import annotations

import pytest
from fakes import text

from agentuse.runtime.approval import find_session

pytestmark = pytest.mark.usefixtures("offline_helper")


@pytest.mark.parametrize("provider, stop", [("anthropic", "refusal"), ("openai", "content_filter")])
def test_a_refusal_fails_the_run_plainly(tmp_path, invoke, request, monkeypatch, provider, stop):
    server = request.getfixturevalue(f"fake_{provider}")
    for key, value in server.env().items():
        monkeypatch.setenv(key, value)
    model = "openai:gpt-test" if provider == "openai" else "anthropic:claude-test"
    root = tmp_path / "project"
    root.mkdir()
    agent = root / "w.agentuse"
    agent.write_text(f"---\nmodel: {model}\napproval: true\n---\n\nWrite the post.\n")
    # The fake OpenAI server speaks Anthropic's stop reasons; content_filter is sent as OpenAI writes it.
    server.script(_openai_filtered() if provider == "openai" else text("I can", stop_reason=stop))
    result = invoke("run", agent, "go", code=1)
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: the run failed: {model}: the model refused to do this work (stop reason {stop})")
    session = find_session(line.rsplit("session ", 1)[1].rstrip(")"))
    assert session.status == "failed"


def _openai_filtered():
    import json

    from fakes.messages_server import Reply

    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "gpt-test",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "I can"},
                         "finish_reason": "content_filter"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}}
    return Reply(raw=json.dumps(body).encode())
