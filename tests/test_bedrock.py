"""`bedrock:<model id>` against the fake Converse API over real HTTP, spoken to by the real botocore client:
what goes on the wire (URL, model id, a SigV4 signature), a full agent run with a tool and a review with
`--remember`, every helper operation (forced tool and JSON text), which faults retry, and the one line a
user without credentials, a region or botocore gets."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest
from fakes import Reply, bad_request, server_error, silent, text, throttled, tool_use, unauthorized, session_id_in
from fakes.bedrock_server import ACCESS_KEY, REGION, SIGV4, model_id
from helper_cases import ANSWER_TYPES, MODEL_ANSWERS, call

from agentuse.core import store
from agentuse.core.helper import deadline
from agentuse.core.helper import protocol as p
from agentuse.core.helper.bedrock import BedrockHelper
from agentuse.core.helper.factory import offline_reason, resolve_helper
from agentuse.core.helper.operations import OPERATIONS
from agentuse.core.helper.render import prompt
from agentuse.core.learning import State
from agentuse.core.models import ModelRef, endpoint
from agentuse.runtime.bedrock import BedrockProvider
from agentuse.runtime.messages import Message, ModelCall, ToolSpec
from agentuse.runtime.providers import ModelError, provider_for

CLAUDE = "anthropic.claude-sonnet-5-v1:0"  # a colon in the id, as Bedrock writes them
LLAMA = "meta.llama3-3-70b-instruct-v1:0"
CALL = ModelCall(model=f"bedrock:{CLAUDE}", system="Be brief.", messages=[Message.user_text("hi")],
                 tools=[ToolSpec(name="list_dir", description="List a folder", input_schema={"type": "object"})])


@pytest.fixture
def aws(fake_bedrock, monkeypatch):
    """The AWS chain (which reads the process environment) pointed at the fake with static credentials."""
    for key, value in fake_bedrock.env().items():
        monkeypatch.setenv(key, value)
    return fake_bedrock


def helper_for(model: str) -> BedrockHelper:
    helper = resolve_helper(model, env={**os.environ, deadline.TIMEOUT_VARIABLE: "5"})
    assert isinstance(helper, BedrockHelper)
    return helper


def answer_for(req):
    """A well-behaved model: the forced tool's input, or the JSON the system prompt's schema asks for."""
    if req.forced_tool:
        return tool_use(req.forced_tool, MODEL_ANSWERS[req.forced_tool.removeprefix("submit_")],
                        input_tokens=120, output_tokens=30)
    name = re.search(r"The response schema \(submit_(\w+)\)", req.body["system"][0]["text"]).group(1)
    return text(f"```json\n{json.dumps(MODEL_ANSWERS[name])}\n```", input_tokens=120, output_tokens=30)


# --- on the wire --------------------------------------------------------------------------------------


def test_the_request_is_signed_for_bedrock_in_the_region(aws, monkeypatch):
    monkeypatch.setenv("AWS_SESSION_TOKEN", "fake-session-token")
    aws.script(default=answer_for)
    call(helper_for(f"bedrock:{CLAUDE}"), "audit")
    [req] = aws.requests
    assert req.method == "POST" and req.path == "/model/anthropic.claude-sonnet-5-v1%3A0/converse"
    assert model_id(req) == CLAUDE
    signed = SIGV4.match(req.headers["authorization"])
    assert signed, req.headers["authorization"]
    assert (signed["key"], signed["region"]) == (ACCESS_KEY, REGION)
    assert {"host", "x-amz-date", "x-amz-security-token"} <= set(signed["signed"].split(";"))
    assert req.headers["x-amz-security-token"] == "fake-session-token"
    assert signed["date"] == req.headers["x-amz-date"][:8]


def test_the_signature_is_the_one_aws_would_check(aws):
    """Recompute SigV4 over what the server received, with the same key and instant: it matches."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    aws.script(default=answer_for)
    call(helper_for(f"bedrock:{CLAUDE}"), "audit")
    [req] = aws.requests
    signed = SIGV4.match(req.headers["authorization"])["signed"].split(";")
    headers = {k: v for k, v in req.headers.items() if k in signed}
    probe = AWSRequest(method="POST", url=f"{aws.url}{req.path}", data=req.raw, headers=headers)
    signer = SigV4Auth(Credentials(ACCESS_KEY, "fake-secret"), "bedrock", REGION)
    probe.context["timestamp"] = req.headers["x-amz-date"]
    expected = signer.signature(signer.string_to_sign(probe, signer.canonical_request(probe)), probe)
    assert req.headers["authorization"].endswith(f"Signature={expected}")


# --- every helper operation ---------------------------------------------------------------------------


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_every_operation_by_forced_tool(aws, operation):
    aws.script(default=answer_for)
    helper = helper_for(f"bedrock:{CLAUDE}")
    assert call(helper, operation) == ANSWER_TYPES[operation].model_validate(MODEL_ANSWERS[operation])
    [req] = aws.requests
    body, op = req.body, OPERATIONS[operation]
    assert body["system"] == [{"text": prompt(operation)}]
    assert body["inferenceConfig"] == {"maxTokens": op.max_tokens}
    assert body["toolConfig"]["toolChoice"] == {"tool": {"name": op.tool_name}}
    [tool] = body["toolConfig"]["tools"]
    assert tool["toolSpec"]["inputSchema"] == {"json": op.answer.model_json_schema()}
    assert helper.usage == p.HelperUsage(calls=1, input_tokens=120, output_tokens=30)


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_every_operation_by_json_text_on_a_model_without_forced_tools(aws, operation):
    aws.script(default=answer_for)
    helper = helper_for(f"bedrock:{LLAMA}")
    assert call(helper, operation) == ANSWER_TYPES[operation].model_validate(MODEL_ANSWERS[operation])
    [req] = aws.requests
    assert "toolConfig" not in req.body and model_id(req) == LLAMA
    system = req.body["system"][0]["text"]
    assert system.startswith(prompt(operation, json_answer=True))
    assert json.dumps(OPERATIONS[operation].answer.model_json_schema()) in system


# --- faults -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reply, kind, fragment", [
    (throttled(retry_after=7), p.TransientHelperError, "429 ThrottlingException"),
    (server_error(), p.TransientHelperError, "500 InternalServerException"),
    (Reply(status=503, error_type="ServiceUnavailableException", message="busy"), p.TransientHelperError, "503"),
    (silent(10), p.TransientHelperError, "timed out"),
    (bad_request("The model id is not valid"), p.PermanentHelperError, "400 ValidationException"),
    (unauthorized(), p.PermanentHelperError, "(check the AWS credentials and the model's access"),
    (text("I would rather chat."), p.InvalidAnswerError, "did not call the tool"),
    (tool_use("submit_audit", {"missing": "nope"}), p.InvalidAnswerError, "does not validate"),
    (text("", stop_reason="max_tokens"), p.InvalidAnswerError, "ran out of output tokens"),
])
def test_faults_are_typed(aws, monkeypatch, reply, kind, fragment):
    monkeypatch.setenv(deadline.TIMEOUT_VARIABLE, "0.5")
    aws.script(reply)
    helper = resolve_helper(f"bedrock:{CLAUDE}", env=os.environ)
    with pytest.raises(kind) as raised:
        call(helper, "audit")
    assert type(raised.value) is kind and fragment in str(raised.value), str(raised.value)
    if reply.status == 429:
        assert raised.value.retry_after == 7 and raised.value.reason == "rate-limited"


def test_transient_faults_retry_and_others_do_not(aws, monkeypatch):
    from agentuse.tasks import retry

    slept = []
    monkeypatch.setattr(retry.time, "sleep", slept.append)
    aws.script(throttled(retry_after=3), server_error(), default=answer_for)
    helper = helper_for(f"bedrock:{CLAUDE}")
    answer = retry.retry_inline(lambda: call(helper, "audit"), delays=[0.01, 0.01])
    assert answer == p.AuditAnswer.model_validate(MODEL_ANSWERS["audit"])
    assert slept == [3, 0.01] and len(aws.requests) == 3  # never sooner than the server's retry-after
    aws.reset()
    aws.script(bad_request("no"), default=answer_for)
    with pytest.raises(p.PermanentHelperError):
        retry.retry_inline(lambda: call(helper, "audit"), delays=[0.01, 0.01])
    assert len(aws.requests) == 1


def test_the_run_provider_retries_a_throttle_and_not_a_bad_request(aws, monkeypatch):
    from agentuse.runtime import providers

    monkeypatch.setattr(providers.time, "sleep", lambda _s: None)
    aws.script(throttled(), tool_use("list_dir", {"path": "."}))
    provider = provider_for(f"bedrock:{CLAUDE}")
    reply = provider.complete(CALL)
    [use] = reply.tool_uses
    assert (use.name, use.input, reply.stop_reason) == ("list_dir", {"path": "."}, "tool_use")
    assert len(aws.requests) == 2
    first = aws.requests[0].body
    assert first["system"] == [{"text": "Be brief."}] and first["messages"] == [{"role": "user", "content": [{"text": "hi"}]}]
    assert first["toolConfig"] == {"tools": [{"toolSpec": {"name": "list_dir", "description": "List a folder",
                                                           "inputSchema": {"json": {"type": "object"}}}}]}
    aws.reset()
    aws.script(bad_request("context too long"))
    with pytest.raises(ModelError, match=re.escape(f"bedrock:{CLAUDE}: the API answered 400 ValidationException: "
                                                   "context too long")):
        provider.complete(CALL)
    assert len(aws.requests) == 1


# --- a user with only AWS credentials -----------------------------------------------------------------

AGENT = """---
model: bedrock:{model}
approval: true
learning:
  apply: true
---

# Blog Writer

Write short productivity blog posts and save each one under `posts/`.
"""


def agent_file(tmp_path, model: str = CLAUDE):
    root = tmp_path / "project"
    (root / "posts").mkdir(parents=True)
    path = root / "blog.agentuse"
    path.write_text(AGENT.format(model=model))
    return path


def test_only_aws_credentials_run_an_agent_with_a_tool_and_remember(tmp_path, aws, invoke):
    from test_openai_e2e import learning_model

    agent = agent_file(tmp_path)
    aws.script(tool_use("write_file", {"path": "posts/focus.md", "content": "# Focus\n"}, preamble="Saving."),
               text("Saved the post to posts/focus.md", input_tokens=50, output_tokens=12))
    result = invoke("run", agent, "Write about focus")
    sid = session_id_in(result.stdout)
    assert (agent.parent / "posts" / "focus.md").read_text() == "# Focus\n"
    first, second = aws.requests
    assert model_id(first) == CLAUDE and SIGV4.match(first.headers["authorization"])
    assert first.body["system"][0]["text"].startswith("# Blog Writer")
    assert [t["toolSpec"]["name"] for t in first.body["toolConfig"]["tools"]] == [
        "read_file", "write_file", "list_dir", "run_shell"]
    assistant, results = second.body["messages"][-2:]
    assert assistant["role"] == "assistant" and assistant["content"][0] == {"text": "Saving."}
    use = assistant["content"][1]["toolUse"]
    [result_block] = results["content"]
    assert result_block["toolResult"]["toolUseId"] == use["toolUseId"]
    assert result_block["toolResult"]["status"] == "success"

    # Review with --remember: grounded, audited, reconciled and vetted by the same Bedrock model.
    aws.reset()
    aws.script(default=as_chat(learning_model))
    invoke("sessions", "resume", sid, "--approve", "--remember", "Always include source links before publishing.")
    assert [r.forced_tool for r in aws.requests] == ["submit_ground", "submit_audit", "submit_reconcile", "submit_vet"]
    [rule] = store.load(store.locate(agent)).learnings
    assert (rule.title, rule.state) == ("Link every source before publishing", State.active)
    doctor = invoke("doctor", agent).stdout
    assert f"judge: the model bedrock:{CLAUDE}" in doctor


def as_chat(model):
    """A Chat Completions script (test_openai_e2e.learning_model) answering Converse requests."""
    from types import SimpleNamespace

    def answer(req):
        named = re.search(r"The response schema \((submit_\w+)\)", req.body["system"][0]["text"])
        user = req.body["messages"][-1]["content"][0]["text"]
        return model(SimpleNamespace(forced_tool=req.forced_tool, schema_name=named and named.group(1),
                                     body={"messages": [{"role": "user", "content": user}]}))

    return answer


def test_a_bedrock_llama_adds_and_tidies_learnings(tmp_path, aws, invoke):
    """A model without forced tools (JSON text answers) judges `learnings add` and tidies the set."""
    from test_openai_e2e import learning_model

    agent = agent_file(tmp_path, LLAMA)
    aws.script(default=as_chat(learning_model))
    invoke("learnings", "add", agent, "Always include source links before publishing.")
    invoke("learnings", "add", agent, "Link every source a post cites.")
    assert all("toolConfig" not in r.body and model_id(r) == LLAMA for r in aws.requests)
    assert len([r for r in store.load(store.locate(agent)).learnings if r.state is State.active]) == 2
    aws.reset()
    aws.script(default=as_chat(learning_model))
    tidy = invoke("learnings", "tidy", agent)
    assert "1 merged, 0 rewritten, 0 retired, 0 quarantined, 0 now permanent — 2 → 1 in force" in tidy.stdout
    assert "offline evaluator" not in tidy.stdout + tidy.stderr
    assert len(aws.requests) == 4  # plan, rewrite, the gate's vet and audit


@pytest.mark.parametrize("drop, line", [
    ("AWS_ACCESS_KEY_ID", f"error: no AWS credentials found for bedrock:{CLAUDE}: set AWS_PROFILE"),
    ("AWS_REGION", f"error: bedrock:{CLAUDE}: no AWS region is set: set AWS_REGION"),
])
def test_a_run_without_credentials_or_region_is_one_line(tmp_path, aws, monkeypatch, invoke, drop, line):
    monkeypatch.delenv(drop)
    result = invoke("run", agent_file(tmp_path), "Write", code=1)
    assert result.stderr.startswith(line) and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not aws.requests


def test_a_signing_failure_is_one_line(tmp_path, aws, monkeypatch, invoke):
    """botocore refuses to sign (here: a Bedrock API key, which needs HTTPS, to the fake's plain HTTP)."""
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key")
    result = invoke("run", agent_file(tmp_path), "Write", code=1)
    assert result.stderr.strip() == (f"error: bedrock:{CLAUDE}: Invalid endpoint configuration: "
                                     "Bearer authorization requires an HTTPS endpoint."), result.stderr
    assert not aws.requests


def test_without_botocore_a_run_names_the_extra(tmp_path, aws, monkeypatch, invoke):
    monkeypatch.setitem(sys.modules, "botocore", None)  # `import botocore...` raises ImportError
    result = invoke("run", agent_file(tmp_path), "Write", code=1)
    assert result.stderr.strip() == ("error: bedrock: models need botocore, which is not installed: "
                                     "pip install 'agentuse[bedrock]'")


def test_helper_calls_without_credentials_run_offline_and_say_why(aws, monkeypatch):
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    assert offline_reason(f"bedrock:{CLAUDE}", os.environ).startswith(f"no AWS credentials found for bedrock:{CLAUDE}")
    monkeypatch.setenv("AWS_PROFILE", "work")
    assert offline_reason(f"bedrock:{CLAUDE}", os.environ) is None


def test_helper_calls_find_an_instance_role_when_nothing_else_names_credentials(aws, monkeypatch):
    """The standard chain ends at the instance (or container) role, which only the metadata service knows:
    a helper call asks it, once, when no variable and no ~/.aws file names credentials. doctor does not."""
    from fakes.imds_server import ACCESS_KEY as ROLE_KEY, FakeIMDSServer

    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    imds = FakeIMDSServer().start()
    try:
        for key, value in imds.env().items():
            monkeypatch.setenv(key, value)
        model = f"bedrock:{CLAUDE}"
        assert offline_reason(model, os.environ) is not None  # judged without the network (doctor)
        assert offline_reason(model, os.environ, probe=True) is None  # a helper call asks the role
        helper = helper_for(model)
        aws.script(default=answer_for)
        helper.vet(p.VetRequest(contract="c", candidates=[p.VetCandidate(id="c1", text="Cite sources")]))
        assert aws.requests[-1].headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={ROLE_KEY}/")
        imds.role = False  # a metadata service with no role attached: offline, saying why
        assert offline_reason(model, os.environ, probe=True).startswith(f"no AWS credentials found for {model}")
    finally:
        imds.stop()


@pytest.mark.parametrize("fault", [server_error(), Reply(status=503, error_type="ServiceUnavailableException"),
                                   silent(10)], ids=["500", "503", "timeout"])
def test_the_run_provider_retries_server_faults_and_timeouts(aws, monkeypatch, fault):
    from agentuse.runtime import providers

    monkeypatch.setattr(providers.time, "sleep", lambda _s: None)
    aws.script(fault, text("done"))
    provider = BedrockProvider(endpoint(ModelRef.parse(f"bedrock:{CLAUDE}"), os.environ), timeout=0.5)
    assert provider.complete(CALL).text == "done" and len(aws.requests) == 2
