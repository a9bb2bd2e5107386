"""The OpenAI-compatible provider in the tool loop over real HTTP: transient faults retried after the
server's retry-after, others a ModelError naming the status, and a recorded run replays with no network."""

from __future__ import annotations

import re

import pytest
from fakes import bad_request, rate_limited, text, tool_use, unauthorized, session_id_in

from agentuse.runtime.messages import Message, ModelCall, ToolSpec
from agentuse.runtime.providers import ModelError, OpenAIChatProvider, provider_for
from agentuse.runtime.approval import find_session

CALL = ModelCall(model="openai:gpt-test", system="Be brief.", messages=[Message.user_text("hi")],
                 tools=[ToolSpec(name="list_dir", description="List a folder", input_schema={"type": "object"})])


def test_a_rate_limit_is_retried_then_answered(fake_openai):
    fake_openai.script(rate_limited(retry_after_ms=5), tool_use("list_dir", {"path": "."}))
    provider = provider_for("openai:gpt-test", env=fake_openai.env("OPENAI"))
    assert isinstance(provider, OpenAIChatProvider)
    reply = provider.complete(CALL)
    [use] = reply.tool_uses
    assert (use.name, use.input, reply.stop_reason) == ("list_dir", {"path": "."}, "tool_use")
    assert reply.usage.input_tokens == 11 and len(fake_openai.requests) == 2
    tool = fake_openai.requests[0].body["tools"][0]
    assert tool == {"type": "function", "function": {"name": "list_dir", "description": "List a folder",
                                                     "parameters": {"type": "object"}}}


@pytest.mark.parametrize("reply, message", [
    (bad_request("context too long"), "openai:gpt-test: the API answered 400: context too long"),
    (unauthorized(), "(check OPENAI_API_KEY)"),
    (tool_use("list_dir", "{not json"), "tool arguments that are not JSON"),
])
def test_permanent_faults_are_one_model_error(fake_openai, reply, message):
    fake_openai.script(reply)
    provider = provider_for("openai:gpt-test", env=fake_openai.env("OPENAI"))
    with pytest.raises(ModelError, match=re.escape(message)):
        provider.complete(CALL)
    assert len(fake_openai.requests) == 1  # not retried


def test_an_openai_run_replays_offline(tmp_path, fake_openai, monkeypatch, invoke):
    for key, value in fake_openai.env("OPENAI").items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "project"
    root.mkdir()
    agent = root / "a.agentuse"
    agent.write_text("---\nmodel: openai:gpt-test\n---\n\nList the project, then say done.\n")
    fake_openai.script(tool_use("list_dir", {"path": "."}), text("done"))
    first = invoke("run", agent, "go")
    sid = session_id_in(first.stdout)
    fake_openai.stop()  # no model from here on
    again = invoke("run", agent, "go", "--model", f"replay:{find_session(sid).path}")
    assert again.stdout.startswith("done\n")
