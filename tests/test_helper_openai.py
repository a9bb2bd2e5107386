"""The OpenAI-compatible helper against the fake Chat Completions API over real HTTP: every operation by
forced tool call and by JSON-schema response format, typed faults with retry-after, usage, and what each
provider family puts on the wire (URL path, model name, key header)."""

from __future__ import annotations

import socket

import pytest

from agentuse.core.helper import deadline
from agentuse.core.helper import protocol as p
from agentuse.core.helper.factory import resolve_helper
from agentuse.core.helper.openai_compat import OpenAICompatHelper
from agentuse.core.helper.operations import OPERATIONS
from agentuse.core.helper.render import prompt
from fakes import Reply, bad_request, json_answer, rate_limited, server_error, text, tool_use, trickle, unauthorized
from helper_cases import ANSWER_TYPES, MODEL_ANSWERS, call


def answer_for(req):
    """A well-behaved model: the forced function's arguments, or the JSON the response format asks for."""
    if req.forced_tool:
        return tool_use(req.forced_tool, MODEL_ANSWERS[req.forced_tool.removeprefix("submit_")],
                        input_tokens=120, output_tokens=30)
    return json_answer(MODEL_ANSWERS[req.schema_name.removeprefix("submit_")], input_tokens=120, output_tokens=30)


def helper_for(model, env):
    helper = resolve_helper(model, env={**env, deadline.TIMEOUT_VARIABLE: "5"})
    assert isinstance(helper, OpenAICompatHelper)
    return helper


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_every_operation_by_forced_tool_call(fake_openai, operation):
    fake_openai.script(default=answer_for)
    helper = helper_for("openai:gpt-test", fake_openai.env("OPENAI"))
    assert call(helper, operation) == ANSWER_TYPES[operation].model_validate(MODEL_ANSWERS[operation])
    [req] = fake_openai.requests
    body, op = req.body, OPERATIONS[operation]
    assert body["model"] == "gpt-test" and body["max_completion_tokens"] == op.max_tokens
    assert body["messages"][0] == {"role": "system", "content": prompt(operation)}
    assert body["tool_choice"] == {"type": "function", "function": {"name": op.tool_name}}
    [tool] = body["tools"]
    assert tool["function"]["parameters"] == op.answer.model_json_schema()
    assert "response_format" not in body
    assert helper.usage == p.HelperUsage(calls=1, input_tokens=120, output_tokens=30)


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_every_operation_by_json_schema_on_a_local_model(fake_openai, operation):
    fake_openai.script(default=answer_for)
    helper = helper_for("ollama:qwen3.5:0.8b", fake_openai.env("OLLAMA", api_key=None))
    assert call(helper, operation) == ANSWER_TYPES[operation].model_validate(MODEL_ANSWERS[operation])
    [req] = fake_openai.requests
    body, op = req.body, OPERATIONS[operation]
    assert body["model"] == "qwen3.5:0.8b" and body["max_tokens"] == op.max_tokens
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": op.tool_name, "schema": op.answer.model_json_schema()}}
    assert "tools" not in body and "tool_choice" not in body
    system = body["messages"][0]["content"]
    assert system == prompt(operation, json_answer=True) and "calling the tool" not in system
    assert "Answer with one JSON object matching the response schema, once" in system
    assert "authorization" not in req.headers  # a local server needs no key


def test_a_fenced_json_answer_is_read(fake_openai):
    fake_openai.script(text("```json\n" + '{"missing": []}' + "\n```"))
    helper = helper_for("ollama:m", fake_openai.env("OLLAMA", api_key=None))
    assert call(helper, "audit") == p.AuditAnswer()


@pytest.mark.parametrize("reply, kind, fragment", [
    (rate_limited(retry_after=7, retry_after_ms=None), p.TransientHelperError, "429"),
    (server_error(), p.TransientHelperError, "500"),
    (Reply(raw=b"<html>bad gateway</html>"), p.TransientHelperError, "not JSON"),
    (bad_request("context too long"), p.PermanentHelperError, "400: context too long"),
    (unauthorized(), p.PermanentHelperError, "(check OPENAI_API_KEY)"),
    (text("I would rather chat."), p.InvalidAnswerError, "did not call the tool"),
    (tool_use("submit_audit", {"missing": "nope"}), p.InvalidAnswerError, "does not validate"),
    (tool_use("submit_audit", "{not json"), p.InvalidAnswerError, "does not validate"),
    (text("", stop_reason="max_tokens"), p.InvalidAnswerError, "ran out of output tokens"),
])
def test_faults_are_typed(fake_openai, reply, kind, fragment):
    fake_openai.script(reply)
    helper = helper_for("openai:gpt-test", fake_openai.env("OPENAI"))
    with pytest.raises(kind, match=None) as raised:
        call(helper, "audit")
    assert type(raised.value) is kind and fragment in str(raised.value)
    if reply.status == 429:
        assert raised.value.retry_after == 7 and raised.value.reason == "rate-limited"


def test_retry_after_ms_is_read_and_a_bad_answer_still_counts_its_tokens(fake_openai):
    fake_openai.script(rate_limited(retry_after_ms=1500), text("chat", input_tokens=9, output_tokens=4))
    helper = helper_for("openai:gpt-test", fake_openai.env("OPENAI"))
    with pytest.raises(p.TransientHelperError) as raised:
        call(helper, "audit")
    assert raised.value.retry_after == 1.5
    with pytest.raises(p.InvalidAnswerError):
        call(helper, "audit")
    assert helper.usage == p.HelperUsage(calls=1, input_tokens=9, output_tokens=4)


def test_inline_retries_wait_at_least_what_the_server_asked(fake_openai, monkeypatch):
    from agentuse.tasks import retry

    slept = []
    monkeypatch.setattr(retry.time, "sleep", slept.append)
    fake_openai.script(rate_limited(retry_after=3, retry_after_ms=None), default=answer_for)
    helper = helper_for("openai:gpt-test", fake_openai.env("OPENAI"))
    answer = retry.retry_inline(lambda: call(helper, "audit"), delays=[0.01, 0.01])
    assert answer == p.AuditAnswer.model_validate(MODEL_ANSWERS["audit"])
    assert slept == [3] and len(fake_openai.requests) == 2


def test_nothing_listening_is_transient():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    helper = helper_for("ollama:m", {"OLLAMA_BASE_URL": f"http://127.0.0.1:{port}/v1"})
    with pytest.raises(p.TransientHelperError) as raised:
        call(helper, "audit")
    assert raised.value.reason == "unreachable"


def test_a_trickled_body_is_cut_off_at_the_request_limit(fake_openai):
    fake_openai.script(trickle(json_answer({"missing": []}), every=0.2, limit=10))
    helper = resolve_helper("ollama:m", env={**fake_openai.env("OLLAMA", api_key=None),
                                             deadline.TIMEOUT_VARIABLE: "0.5"})
    with pytest.raises(p.TransientHelperError) as raised:
        call(helper, "audit")
    assert raised.value.reason == "timed out"


# --- what each provider family sends ------------------------------------------------------------------


@pytest.mark.parametrize("model, prefix, key, header", [
    ("openai:gpt-5.5", "OPENAI", "sk-o", "Bearer sk-o"),
    ("openrouter:z-ai/glm-5.2", "OPENROUTER", "sk-or", "Bearer sk-or"),
    ("ollama:qwen3.5:0.8b", "OLLAMA", None, None),
    ("lmstudio:qwen/qwen3-4b", "LMSTUDIO", None, None),
    ("my-vllm:llama:8b", "MY_VLLM", "tok", "Bearer tok"),
])
def test_the_openai_family_sends_path_model_and_key(fake_openai, model, prefix, key, header):
    fake_openai.script(default=answer_for)
    helper = helper_for(model, fake_openai.env(prefix, api_key=key))
    call(helper, "audit")
    [req] = fake_openai.requests
    assert req.method == "POST" and req.path == "/v1/chat/completions"
    assert req.body["model"] == model.split(":", 1)[1]
    assert req.headers.get("authorization") == header
    assert helper.name == model


def test_the_anthropic_family_sends_path_model_and_key(fake_anthropic):
    from fakes import tool_use as anthropic_tool_use

    fake_anthropic.script(lambda req: anthropic_tool_use(req.forced_tool, MODEL_ANSWERS["audit"]))
    helper = resolve_helper("anthropic:claude-test:dev", env={
        "ANTHROPIC_BASE_URL": fake_anthropic.url, "ANTHROPIC_API_KEY": "wrong", "ANTHROPIC_API_KEY_DEV": "sk-dev"})
    call(helper, "audit")
    [req] = fake_anthropic.requests
    assert req.path == "/v1/messages" and req.body["model"] == "claude-test"
    assert req.headers["authorization"] == "Bearer sk-dev"  # this SDK version sends the key as a bearer token
