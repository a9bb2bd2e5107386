"""The Anthropic provider over real HTTP against the fake Messages API: the loop, tools and errors."""

from __future__ import annotations

import os

import pytest
from fakes import bad_request, text, tool_use

from agentuse.runtime.events import RunStart
from agentuse.runtime.loop import run_turns
from agentuse.runtime.messages import Message, ModelCall
from agentuse.runtime.providers import AnthropicProvider, ModelError, provider_for
from agentuse.runtime.session import SessionLog
from agentuse.runtime.tools import ToolBox


def new_log(tmp_path, project):
    log = SessionLog.create(tmp_path / "sessions", "01HTTP")
    log.append(
        RunStart(session_id="01HTTP", agent_key="blog.agentuse", agent_path=str(project / "blog.agentuse"),
                 project_root=str(project), ih="0" * 12, model="anthropic:claude-test", prompt="Write a post",
                 system="# Blog Writer", pid=os.getpid())
    )
    return log


def test_a_tool_error_and_its_correction_over_http(tmp_path, fake_anthropic):
    project = tmp_path / "project"
    (project / "posts").mkdir(parents=True)
    fake_anthropic.script(
        tool_use("write_file", {"path": "/posts/p.md", "content": "hi"}),
        tool_use("write_file", {"path": "posts/p.md", "content": "hi"}),
        text("Done: posts/p.md", input_tokens=40, output_tokens=9),
    )
    provider = provider_for("anthropic:claude-test", env=fake_anthropic.env())
    assert isinstance(provider, AnthropicProvider)
    result = run_turns(log=new_log(tmp_path, project), provider=provider, tools=ToolBox(project))
    assert result.output == "Done: posts/p.md"
    assert result.usage.input_tokens == 11 + 11 + 40 and result.usage.output_tokens == 7 + 7 + 9
    assert (project / "posts" / "p.md").read_text() == "hi"
    first, second, third = fake_anthropic.requests
    assert first.body["model"] == "claude-test" and first.body["system"] == "# Blog Writer"
    assert [t["name"] for t in first.tools] == ["read_file", "write_file", "list_dir", "run_shell"]
    failed = second.body["messages"][-1]["content"][0]
    assert failed["type"] == "tool_result" and failed["is_error"] is True
    assert failed["tool_use_id"] == "toolu_fake_0_0"
    assert failed["content"] == "path '/posts/p.md' is outside the project root; use a path relative to the project root"
    assert third.body["messages"][-1]["content"][0]["is_error"] is False
    assert fake_anthropic.pending == 0


def test_an_api_error_is_a_model_error_naming_the_status(tmp_path, fake_anthropic):
    project = tmp_path / "project"
    project.mkdir()
    fake_anthropic.script(bad_request("prompt is too long"))
    provider = provider_for("anthropic:claude-test", env=fake_anthropic.env())
    with pytest.raises(ModelError, match="the API answered 400: prompt is too long"):
        run_turns(log=new_log(tmp_path, project), provider=provider, tools=ToolBox(project))


def test_a_refused_key_names_the_variable_the_model_string_picked(fake_anthropic):
    """The auth hint is model_http's, one for every provider: a key suffix names its own variable."""
    from fakes import unauthorized

    fake_anthropic.script(unauthorized())
    env = {"ANTHROPIC_BASE_URL": fake_anthropic.url, "ANTHROPIC_API_KEY_DEV": "sk-dev"}
    provider = provider_for("anthropic:claude-test:dev", env=env)
    with pytest.raises(ModelError, match=r"answered 401: .*\(check ANTHROPIC_API_KEY_DEV\)$"):
        provider.complete(ModelCall(model=provider.model, system="s", messages=[Message.user_text("hi")], tools=[]))


def test_an_overloaded_turn_is_retried_by_the_one_runtime_policy(fake_anthropic, monkeypatch):
    """The run's retries are runtime/providers.with_retries, as for every provider (the SDK's are off):
    after the server's retry-after, and a bad request is not retried."""
    from fakes import overloaded

    from agentuse.runtime import providers

    slept = []
    monkeypatch.setattr(providers.time, "sleep", slept.append)
    fake_anthropic.script(overloaded(retry_after_ms=None, retry_after=3), text("done"))
    provider = provider_for("anthropic:claude-test", env=fake_anthropic.env())
    call = ModelCall(model=provider.model, system="s", messages=[Message.user_text("hi")], tools=[])
    assert provider.complete(call).text == "done"
    assert slept == [3.0] and len(fake_anthropic.requests) == 2
    fake_anthropic.script(bad_request("no"))
    with pytest.raises(ModelError, match="the API answered 400: no"):
        provider.complete(call)
    assert len(fake_anthropic.requests) == 3
