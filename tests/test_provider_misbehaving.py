"""Every provider against a misbehaving server over real HTTP (the fakes in tests/fakes/): bodies far
larger than any answer, redirects to another host, a drip that never finishes on an agent run, keys echoed
in error bodies. Helper calls and agent runs alike end in one short fault, and nothing but the configured
endpoint ever receives the key or the prompt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fakes import FakeMessagesServer, FakeOpenAIServer, error, huge, text, tool_use, trickle

from agentuse.core.helper import deadline
from agentuse.core.helper import protocol as p
from agentuse.core.helper.anthropic import AnthropicHelper
from agentuse.core.helper.factory import resolve_helper
MAX_BODY_BYTES = 16 * 1024 * 1024  # placeholder until the constant exists
from agentuse.runtime.messages import Message, ModelCall
from agentuse.runtime.providers import ModelError, provider_for

HUGE = 100 * 1024 * 1024  # the brief's 100 MB: must never be read whole
VET = p.VetRequest(contract="Write short posts.", trace="t", candidates=[p.VetCandidate(id="c1", text="x")])
CALL = ModelCall(model="m", system="Be brief.", messages=[Message.user_text("hi")])


def _anthropic_helper(server: FakeMessagesServer, key: str = "sk-ant-fake") -> AnthropicHelper:
    return AnthropicHelper("anthropic:claude-test", api_key=key, base_url=server.url, timeout=30.0)


def _openai_helper(server: FakeOpenAIServer, key: str = "sk-fake-openai"):
    return resolve_helper("openai:gpt-test", env={**server.env("OPENAI", api_key=key),
                                                  deadline.TIMEOUT_VARIABLE: "30"})


@pytest.fixture
def other_host():
    """A second server: where a redirect points. It must never be asked anything."""
    server = FakeMessagesServer().start()
    server.script(default=lambda req: text("you should not be here"))
    try:
        yield server
    finally:
        server.stop()


# --- a body far larger than any answer --------------------------------------------------------------


@pytest.mark.parametrize("length_header", [True, False], ids=["declared", "until-close"])
@pytest.mark.parametrize("status", [200, 401])
def test_a_huge_body_is_not_read_whole_and_not_retried_by_the_anthropic_helper(fake_anthropic, status,
                                                                               length_header):
    fake_anthropic.script(default=lambda req: huge(HUGE, status=status, length_header=length_header))
    helper = _anthropic_helper(fake_anthropic)
    with pytest.raises(p.PermanentHelperError, match="larger than"):
        helper.vet(VET)
    [req] = fake_anthropic.requests  # one request: another try would fetch the same flood
    assert req.sent < 3 * MAX_BODY_BYTES


@pytest.mark.parametrize("length_header", [True, False], ids=["declared", "until-close"])
@pytest.mark.parametrize("status", [200, 401])
def test_a_huge_body_is_not_read_whole_and_not_retried_by_the_openai_helper(fake_openai, status, length_header):
    fake_openai.script(default=lambda req: huge(HUGE, status=status, length_header=length_header))
    helper = _openai_helper(fake_openai)
    with pytest.raises(p.PermanentHelperError, match="larger than"):
        helper.vet(VET)
    [req] = fake_openai.requests
    assert req.sent < 3 * MAX_BODY_BYTES


def test_a_huge_body_ends_a_bedrock_call_once(fake_bedrock, monkeypatch):
    for key, value in fake_bedrock.env().items():
        monkeypatch.setenv(key, value)
    fake_bedrock.script(default=lambda req: huge(HUGE, length_header=False))
    helper = resolve_helper("bedrock:anthropic.claude-test-v1:0", env={**os.environ, deadline.TIMEOUT_VARIABLE: "30"})
    with pytest.raises(p.PermanentHelperError, match="larger than"):
        helper.vet(VET)
    [req] = fake_bedrock.requests
    assert req.sent < 3 * MAX_BODY_BYTES


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_huge_body_fails_an_agent_turn_once(fake_anthropic, fake_openai, provider):
    server = fake_anthropic if provider == "anthropic" else fake_openai
    server.script(default=lambda req: huge(HUGE, length_header=False))
    env = fake_anthropic.env() if provider == "anthropic" else fake_openai.env("OPENAI")
    model = provider_for(f"{provider}:m", env=env)
    with pytest.raises(ModelError, match="larger than"):
        model.complete(CALL)
    [req] = server.requests
    assert req.sent < 3 * MAX_BODY_BYTES


# --- a redirect to another host ---------------------------------------------------------------------


def _redirect_to(other: FakeMessagesServer, path: str, status: int = 307):
    # localhost, not 127.0.0.1: another origin, as a redirect to a stranger's host would be
    location = other.url.replace("127.0.0.1", "localhost") + path
    return lambda req: error(status, "", headers={"location": location})


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_the_anthropic_helper_never_follows_a_redirect(fake_anthropic, other_host, status):
    """The SDK's client followed redirects: a 307 re-sent the whole prompt (contract, trace, rules) to the
    host it named, and with an SDK that sends the key as x-api-key (0.40) the key with it."""
    fake_anthropic.script(default=_redirect_to(other_host, "/v1/messages", status))
    helper = _anthropic_helper(fake_anthropic, key="sk-ant-api03-redirected-key-0123456789")
    with pytest.raises(p.PermanentHelperError, match="does not follow redirects") as caught:
        helper.vet(VET)
    assert other_host.requests == [] and len(fake_anthropic.requests) == 1
    assert "localhost" in str(caught.value)  # it names where it was sent, so the base URL can be fixed


def test_an_anthropic_agent_turn_never_follows_a_redirect(fake_anthropic, other_host):
    fake_anthropic.script(default=_redirect_to(other_host, "/v1/messages"))
    model = provider_for("anthropic:m", env=fake_anthropic.env())
    with pytest.raises(ModelError, match="does not follow redirects"):
        model.complete(CALL)
    assert other_host.requests == [] and len(fake_anthropic.requests) == 1


@pytest.mark.parametrize("status", [302, 307])
def test_openai_compatible_calls_never_follow_a_redirect(fake_openai, other_host, status):
    fake_openai.script(default=_redirect_to(other_host, "/v1/chat/completions", status))
    with pytest.raises(p.PermanentHelperError, match="does not follow redirects"):
        _openai_helper(fake_openai).vet(VET)
    with pytest.raises(ModelError, match="does not follow redirects"):
        provider_for("openai:m", env=fake_openai.env("OPENAI")).complete(CALL)
    assert other_host.requests == [] and len(fake_openai.requests) == 2  # one each, neither retried


def test_bedrock_calls_never_follow_a_redirect(fake_bedrock, other_host, monkeypatch):
    for key, value in fake_bedrock.env().items():
        monkeypatch.setenv(key, value)
    fake_bedrock.script(default=_redirect_to(other_host, "/model/x/converse"))
    helper = resolve_helper("bedrock:anthropic.claude-test-v1:0", env={**os.environ, deadline.TIMEOUT_VARIABLE: "30"})
    with pytest.raises(p.PermanentHelperError, match="does not follow redirects"):
        helper.vet(VET)
    assert other_host.requests == [] and len(fake_bedrock.requests) == 1


# --- a drip that never finishes, on an agent turn ---------------------------------------------------


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_an_agent_turn_that_drips_is_cut_off_at_its_deadline(fake_anthropic, fake_openai, provider):
    """Helper calls bound the whole body; a run's own turns bounded only each read (600 s), so a server
    sending a byte a second held the run until the server itself gave up (here: until it dropped the
    connection mid-body after 20 s, which read as 'could not reach')."""
    from agentuse.core.models import ModelRef, endpoint
    from agentuse.runtime.providers import AnthropicProvider, OpenAIChatProvider

    server = fake_anthropic if provider == "anthropic" else fake_openai
    server.script(trickle(text("a long answer " * 20), every=0.2))
    if provider == "anthropic":
        model = AnthropicProvider("m", api_key="sk-ant-fake", base_url=fake_anthropic.url, timeout=1.5, max_retries=0)
    else:
        where = endpoint(ModelRef.parse("openai:m"), fake_openai.env("OPENAI"))
        model = OpenAIChatProvider(where, timeout=1.5, max_retries=0)
    with pytest.raises(ModelError, match="timed out|did not arrive in time"):
        model.complete(CALL)
    assert len(server.requests) == 1


# --- base URLs with odd values ----------------------------------------------------------------------


BAD_URLS = [
    ("OPENAI", "openai:gpt-test", "localhost:8000/v1", "is not an http(s) URL"),
    ("OPENAI", "openai:gpt-test", "file:///etc/passwd", "is not an http(s) URL"),
    ("OPENAI", "openai:gpt-test", "ftp://models.example/v1", "is not an http(s) URL"),
    ("OPENAI", "openai:gpt-test", "http://127.0.0.1:notaport/v1", "is not an http(s) URL"),
    ("OPENAI", "openai:gpt-test", "http://admin:hunter2secret@127.0.0.1:9/v1", "set the key in OPENAI_API_KEY"),
    ("OPENAI", "openai:gpt-test", "http://127.0.0.1:9/v1/chat/completions", "set it to http://127.0.0.1:9/v1"),
    ("OPENAI", "openai:gpt-test", "http://127.0.0.1:9/v1?key=abc", "has a query or fragment"),
    ("ANTHROPIC", "anthropic:claude-test", "localhost:9", "is not an http(s) URL"),
    ("ANTHROPIC", "anthropic:claude-test", "https://admin:hunter2secret@api.example", "set the key in ANTHROPIC_API_KEY"),
    ("ANTHROPIC", "anthropic:claude-test", "http://127.0.0.1:9/v1/messages/", "set it to http://127.0.0.1:9"),
    ("MY_VLLM", "my-vllm:qwen", "gpu-box:8000/v1", "is not an http(s) URL"),
    ("MY_VLLM", "my-vllm:qwen", "http://gpu-box:8000/v1/chat/completions", "set it to http://gpu-box:8000/v1"),
]


@pytest.mark.parametrize("prefix, model, url, fragment", BAD_URLS, ids=[u for _, _, u, _ in BAD_URLS])
def test_a_run_with_an_odd_base_url_is_one_line_and_sends_nothing(tmp_path, monkeypatch, invoke, prefix, model,
                                                                  url, fragment):
    """Before: no scheme, file:// or a bad port was 'could not reach ...: Request URL is missing an http://
    protocol' (or the SDK's bare 'Connection error.'), retried as transient, after a session was begun; a
    base ending in /chat/completions posted to .../chat/completions/chat/completions; a password in the URL
    went out as the request's credentials, and doctor and provider list printed it."""
    monkeypatch.setenv(f"{prefix}_BASE_URL", url)
    monkeypatch.setenv(f"{prefix}_API_KEY", "sk-test-key")
    agent = tmp_path / "a.agentuse"
    agent.write_text(f"---\nmodel: {model}\n---\n\nSay hello.\n")
    result = invoke("run", agent, "go", code=1)
    output = result.stdout + result.stderr
    assert fragment in output and f"{prefix}_BASE_URL" in output
    assert len(output.strip().splitlines()) == 1 and "Traceback" not in output
    assert "hunter2secret" not in output
    assert "session" not in output  # refused before a run began


@pytest.mark.parametrize("prefix, model, url, fragment", BAD_URLS[:7], ids=[u for _, _, u, _ in BAD_URLS[:7]])
def test_helper_calls_with_an_odd_base_url_run_offline_saying_why(prefix, model, url, fragment):
    from agentuse.core.helper.factory import offline_reason

    env = {f"{prefix}_BASE_URL": url, f"{prefix}_API_KEY": "sk-test-key"}
    reason = offline_reason(model, env)
    assert reason and fragment in reason and "hunter2secret" not in reason


def test_doctor_and_provider_list_name_the_problem_never_the_password(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from agentuse.cli.app import app

    monkeypatch.setenv("OPENAI_BASE_URL", "http://admin:hunter2secret@127.0.0.1:9/v1")
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nmodel: openai:gpt-test\n---\n\nSay hello.\n")
    for args in (["doctor", str(agent)], ["provider", "list"]):
        result = CliRunner().invoke(app, args)  # doctor's exit code is its verdict: the text is what counts here
        output = result.stdout + result.stderr
        assert "OPENAI_BASE_URL holds a user name or password" in output and "hunter2secret" not in output


@pytest.mark.parametrize("url, fragment", [
    ("http://admin:hunter2secret@gpu-box:8000/v1", "--key-env"),
    ("gpu-box:8000/v1", "is not an http(s) URL"),
    ("http://gpu-box:8000/v1/chat/completions", "set it to http://gpu-box:8000/v1"),
])
def test_provider_add_refuses_an_odd_url(invoke, url, fragment):
    result = invoke("provider", "add", "my-vllm", "--url", url, code=1)
    output = result.stdout + result.stderr
    assert fragment in output and "hunter2secret" not in output and len(output.strip().splitlines()) == 1


# --- a 401/403 whose body echoes the key ------------------------------------------------------------


ODD_KEY = "local-dev-key-42"  # no credential format redaction knows: only the key sent can mask it


def _echo_key(req):
    sent = req.headers.get("authorization", "").removeprefix("Bearer ") or req.headers.get("x-api-key", "")
    return error(401, "authentication_error", f"Incorrect API key provided: {sent}. Received API Key = {ODD_KEY}")


@pytest.mark.parametrize("provider", ["openai", "my-vllm", "anthropic"])
def test_a_key_echoed_in_an_error_body_is_never_shown_nor_logged(tmp_path, monkeypatch, invoke, fake_anthropic,
                                                                 fake_openai, provider):
    """Before: the run's one line, and the session log's run_end, read 'Received API Key = local-dev-key-42'
    (redaction masks credential formats: sk-..., ghp_...; a local server's key has none)."""
    server = fake_anthropic if provider == "anthropic" else fake_openai
    server.script(default=_echo_key)
    prefix = {"openai": "OPENAI", "my-vllm": "MY_VLLM", "anthropic": "ANTHROPIC"}[provider]
    monkeypatch.setenv(f"{prefix}_BASE_URL", server.url + ("" if provider == "anthropic" else "/v1"))
    monkeypatch.setenv(f"{prefix}_API_KEY", ODD_KEY)
    agent = tmp_path / "a.agentuse"
    agent.write_text(f"---\nmodel: {provider}:m\n---\n\nSay hello.\n")
    result = invoke("run", agent, "go", code=1)
    output = result.stdout + result.stderr
    assert "401" in output and f"check {prefix}_API_KEY" in output and ODD_KEY not in output
    logs = [f for f in Path(os.environ["AGENTUSE_DATA_DIR"]).rglob("*.jsonl") if f.is_file()]
    assert logs and not any(ODD_KEY in log.read_text() for log in logs)  # the session log's run_end too
    with pytest.raises(p.PermanentHelperError) as caught:
        resolve_helper(f"{provider}:m").vet(VET)
    assert "401" in str(caught.value) and ODD_KEY not in str(caught.value)


def test_an_aws_session_token_echoed_in_an_error_body_is_never_shown(fake_bedrock, monkeypatch):
    for key, value in fake_bedrock.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("AWS_SESSION_TOKEN", ODD_KEY)  # sent as x-amz-security-token; a bearer key needs HTTPS
    fake_bedrock.script(default=lambda req: error(403, "AccessDeniedException", f"bad token {ODD_KEY}"))
    with pytest.raises(p.PermanentHelperError) as caught:
        resolve_helper("bedrock:anthropic.claude-test-v1:0").vet(VET)
    assert "403" in str(caught.value) and ODD_KEY not in str(caught.value)
    with pytest.raises(ModelError) as failed:
        provider_for("bedrock:anthropic.claude-test-v1:0").complete(CALL)
    assert "403" in str(failed.value) and ODD_KEY not in str(failed.value)


# --- 429/529 storms with absurd retry-after values --------------------------------------------------


def _storm(retry_after: str):
    return lambda req: error(529, "overloaded_error", "Overloaded", headers={"retry-after": retry_after})


@pytest.mark.parametrize("retry_after, shown", [("36000", "36000 s"), ("1e400", "for ever")])
def test_a_note_saved_through_a_529_asking_for_hours_says_so(tmp_path, monkeypatch, invoke, fake_openai,
                                                             retry_after, shown):
    """Fails open (the note is stored), one request per call, and the line says the server asked for hours:
    it read 'the model did not answer in time (AGENTUSE_HELPER_DEADLINE=...)', which has a person raise a
    deadline no hour-long wait fits."""
    for key, value in fake_openai.env("OPENAI").items():
        monkeypatch.setenv(key, value)
    fake_openai.script(default=_storm(retry_after))
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nmodel: openai:gpt-test\nlearning:\n  model: openai:gpt-test\n---\n\nWrite posts.\n")
    result = invoke("learnings", "add", agent, "Always cite two sources per post")
    assert "Saved" in result.stdout and f"asked to wait {shown} before another try" in result.stdout
    assert "did not answer in time" not in result.stdout
    assert len(fake_openai.requests) == 3  # ground, reconcile, vet: once each


@pytest.mark.parametrize("retry_after", ["-5", "soon", "nan"])
def test_a_retry_after_that_is_not_a_wait_is_ignored(fake_openai, monkeypatch, retry_after):
    """Negative, non-numeric and NaN values are not waits: the back-off applies and the retry happens."""
    import agentuse.runtime.providers as providers

    waits: list[float] = []
    monkeypatch.setattr(providers.time, "sleep", waits.append)
    fake_openai.script(_storm(retry_after), text("fine"))
    model = provider_for("openai:m", env=fake_openai.env("OPENAI"))
    reply = model.complete(CALL)
    assert reply.content[0].text == "fine" and len(fake_openai.requests) == 2 and waits == [1.0]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_an_agent_turn_fails_at_once_when_the_server_asks_for_hours(fake_anthropic, fake_openai, provider):
    """Before: the turn slept 60 s twice (the cap), then failed with the same 529: three requests."""
    server = fake_anthropic if provider == "anthropic" else fake_openai
    server.script(default=_storm("36000"))
    env = fake_anthropic.env() if provider == "anthropic" else fake_openai.env("OPENAI")
    with pytest.raises(ModelError, match="asked to wait 36000 s before another try"):
        provider_for(f"{provider}:m", env=env).complete(CALL)
    assert len(server.requests) == 1


# --- a 200 that is not a message --------------------------------------------------------------------


NOT_A_MESSAGE = [
    (b"<html><body>Sign in to the Wi-Fi</body></html>", "text/html", "not a message (text)"),
    (b'{"content": [{"type": "text", "text": "\xff\xfe"}]}', "application/json", "not JSON"),
    (b"null", "application/json", "not a message (JSON null)"),
    (b"[1, 2]", "application/json", "not a message (a JSON list)"),
    (b'{"id": "m", "type": "message", "role": "assistant"}', "application/json", "without content"),
]


@pytest.mark.parametrize("raw, content_type, fragment", NOT_A_MESSAGE, ids=["html", "bad-utf8", "null", "list",
                                                                          "no-content"])
def test_an_anthropic_200_that_is_not_a_message_fails_open_for_a_note_and_is_one_line_for_a_run(
        tmp_path, monkeypatch, invoke, fake_anthropic, raw, content_type, fragment):
    """Before: the SDK handed back the HTML page as a str (JSON null as None), or raised the decoder's
    UnicodeDecodeError, and both the run and `learnings add` ended in an AttributeError traceback; the
    reviewer's note was never saved (spec: human corrections are never dropped)."""
    from fakes import Reply

    for key, value in fake_anthropic.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("AGENTUSE_RETRY_BASE_SECONDS", "0")
    fake_anthropic.script(default=lambda req: Reply(raw=raw, content_type=content_type))
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-test\nlearning:\n  model: anthropic:claude-test\n---\n\nWrite posts.\n")
    saved = invoke("learnings", "add", agent, "Always cite two sources per post")
    assert 'Saved "Always cite two sources per post"' in saved.stdout and fragment in saved.stdout
    failed = invoke("run", agent, "go", code=1)
    output = failed.stdout + failed.stderr
    assert fragment in output and "Traceback" not in output and len(output.strip().splitlines()) == 1


def _chat(choices, **extra) -> bytes:
    import json

    return json.dumps({"choices": choices, **extra}).encode()


NOT_A_COMPLETION = [
    (_chat("abc"), "choices: Input should be a valid list"),
    (_chat([1]), "choices.0"),
    (_chat([{"message": "hello"}]), "choices.0.message"),
    (_chat([{"message": {"tool_calls": ["x"]}}]), "tool_calls.0"),
    (_chat([{"message": {"content": "hi"}, "finish_reason": 3}]), "finish_reason"),
]


@pytest.mark.parametrize("raw, fragment", NOT_A_COMPLETION, ids=["choices-str", "choice-int", "message-str",
                                                                "tool-call-str", "finish-int"])
def test_a_chat_reply_of_the_wrong_shape_fails_open_for_a_note_and_is_one_line_for_a_run(
        tmp_path, monkeypatch, invoke, fake_openai, raw, fragment):
    """Before: 'str' object has no attribute 'get' as a traceback, from the run and from `learnings add`,
    whose note was not saved."""
    from fakes import Reply

    for key, value in fake_openai.env("OPENAI").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("AGENTUSE_RETRY_BASE_SECONDS", "0")
    fake_openai.script(default=lambda req: Reply(raw=raw))
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nmodel: openai:gpt-test\nlearning:\n  model: openai:gpt-test\n---\n\nWrite posts.\n")
    saved = invoke("learnings", "add", agent, "Always cite two sources per post")
    assert 'Saved "Always cite two sources per post"' in saved.stdout and "not a chat completion" in saved.stdout
    failed = invoke("run", agent, "go", code=1)
    output = failed.stdout + failed.stderr
    assert fragment in output and "Traceback" not in output and len(output.strip().splitlines()) == 1


@pytest.mark.parametrize("raw, expected", [
    # arguments as an object (some compatible servers), content as parts, a numeric id, counts as words
    (_chat([{"message": {"tool_calls": [{"id": 7, "function": {"name": "list_dir", "arguments": {"path": "."}}}]},
             "finish_reason": "tool_calls"}], usage={"prompt_tokens": "many"}),
     [{"type": "tool_use", "id": "7", "name": "list_dir", "input": {"path": "."}}]),
    (_chat([{"message": {"content": [{"type": "text", "text": "hi"}]}}], usage=[1]), [{"type": "text", "text": "hi"}]),
], ids=["object-arguments", "content-parts"])
def test_what_compatible_servers_vary_in_is_read(fake_openai, raw, expected):
    from fakes import Reply

    fake_openai.script(Reply(raw=raw))
    reply = provider_for("openai:m", env=fake_openai.env("OPENAI")).complete(CALL)
    assert [b.model_dump(exclude_none=True) for b in reply.content] == expected
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (0, 0)


def test_tool_arguments_that_are_not_an_object_are_one_model_error(fake_openai):
    from fakes import Reply

    fake_openai.script(Reply(raw=_chat([{"message": {"tool_calls": [{"id": "1", "function": {
        "name": "list_dir", "arguments": "[1]"}}]}}])))
    with pytest.raises(ModelError, match="tool arguments that are not a JSON object"):
        provider_for("openai:m", env=fake_openai.env("OPENAI")).complete(CALL)


NOT_A_CONVERSE_ANSWER = [
    (b"<html>Sign in</html>", "text/html", "not a Converse answer (output"),
    (b"null", "application/json", "botocore cannot read"),
    (b'{"output": "\xff"}', "application/json", "botocore cannot read"),
    (b'{"output": {"message": {"role": "assistant", "content": "hi"}}}', "application/json", "botocore cannot read"),
]


@pytest.mark.parametrize("raw, content_type, fragment", NOT_A_CONVERSE_ANSWER, ids=["html", "null", "bad-utf8",
                                                                                  "content-str"])
def test_a_bedrock_reply_of_the_wrong_shape_fails_open_for_a_note_and_is_one_line_for_a_run(
        tmp_path, monkeypatch, invoke, fake_bedrock, raw, content_type, fragment):
    """Before: an HTML 200 (which botocore parses into nothing) 'completed' the run with no output at all;
    JSON null, bytes that are not UTF-8 and content as a string were TypeError, UnicodeDecodeError and
    AttributeError tracebacks, from the run and from `learnings add`, whose note was not saved."""
    from fakes import Reply

    for key, value in fake_bedrock.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("AGENTUSE_RETRY_BASE_SECONDS", "0")
    fake_bedrock.script(default=lambda req: Reply(raw=raw, content_type=content_type))
    model = "bedrock:anthropic.claude-test-v1:0"
    agent = tmp_path / "a.agentuse"
    agent.write_text(f"---\nmodel: {model}\nlearning:\n  model: {model}\n---\n\nWrite posts.\n")
    saved = invoke("learnings", "add", agent, "Always cite two sources per post")
    assert 'Saved "Always cite two sources per post"' in saved.stdout and fragment in saved.stdout
    failed = invoke("run", agent, "go", code=1)
    output = failed.stdout + failed.stderr
    assert fragment in output and "Traceback" not in output and len(output.strip().splitlines()) == 1


# --- what goes out: a key of the environment, echoed bare --------------------------------------------


ENV_KEY = "staging-deploy-42x"  # no credential format: only the environment says it is one


def test_a_secret_of_the_environment_echoed_bare_reaches_no_prompt_and_no_rule(tmp_path, monkeypatch, cli,
                                                                              fake_anthropic):
    """A run's tool printed $DEPLOY_TOKEN's value with nothing around it ('echo $DEPLOY_TOKEN'): format and
    key-name redaction had nothing to go on, so the value went into the capture helper's trace, and a
    model that repeated it put it into the stored rule, which the next run's system prompt carries."""
    import re

    from capture_support import make_agent
    from agentuse.core import store

    monkeypatch.setenv("DEPLOY_TOKEN", ENV_KEY)
    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    custom: Only capture rules about deploying.")

    def helper(req):
        if req.forced_tool == "submit_extract":
            return tool_use("submit_extract", {"candidates": [{"category": "tool-usage",
                            "title": f"Deploy with the token {ENV_KEY}", "body": f"Pass {ENV_KEY} to deploy."}]})
        if req.forced_tool == "submit_vet":
            ids = re.findall(r'<candidate id="([^"]+)"', req.text)
            return tool_use("submit_vet", {"verdicts": [{"id": i, "verdict": "pass"} for i in ids]})
        return tool_use(req.forced_tool, {"action": "new"})

    fake_anthropic.script(tool_use("run_shell", {"command": "echo $DEPLOY_TOKEN"}), text("Deployed."),
                          default=helper)
    cli("run", agent, "Deploy the release.")
    helper_requests = [r for r in fake_anthropic.requests if r.forced_tool]
    assert helper_requests and "echo $DEPLOY_TOKEN" in helper_requests[0].text  # the trace was sent
    assert not [r.forced_tool for r in helper_requests if ENV_KEY in r.text]
    stored_text = store.locate(agent).store_path.read_text(encoding="utf-8")
    assert "Deploy with the token" in stored_text and ENV_KEY not in stored_text


def test_a_tool_input_sent_as_text_prints_no_serializer_warning(fake_anthropic):
    """The SDK builds blocks without validating them: a tool_use whose input is a string made pydantic
    print 'PydanticSerializationUnexpectedValue(Expected dict[str, any] ...)' on stderr, three lines in the
    middle of a run. The turn goes on; the tool box answers that it expects an object."""
    import warnings

    fake_anthropic.script(tool_use("list_dir", "not an object"))
    model = provider_for("anthropic:m", env=fake_anthropic.env())
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        reply = model.complete(CALL)
    [use] = reply.tool_uses
    assert (use.name, use.input) == ("list_dir", "not an object")


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_compressed_flood_is_bounded_as_it_is_decoded(fake_anthropic, fake_openai, provider):
    """64 MB of answer in 64 KB of gzip: the Anthropic client counted the bytes on the wire, so the whole
    flood would have been decoded into memory (a 16 MB gzip body is 16 GB decoded)."""
    from fakes import gzip_bomb

    server = fake_anthropic if provider == "anthropic" else fake_openai
    server.script(default=lambda req: gzip_bomb(4 * MAX_BODY_BYTES))
    env = fake_anthropic.env() if provider == "anthropic" else fake_openai.env("OPENAI")
    with pytest.raises(ModelError, match="larger than|compressed"):
        provider_for(f"{provider}:m", env=env).complete(CALL)
    assert len(server.requests) == 1
    if provider == "anthropic":  # asked for an uncompressed answer, so the bytes counted are the answer's
        assert server.requests[0].headers["accept-encoding"] == "identity"


# --- a stream cut mid-answer --------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_an_answer_cut_off_mid_body_says_so_and_names_the_endpoint(fake_anthropic, fake_openai, provider):
    """Anthropic said 'could not reach the API: Connection error.' for an endpoint it had reached, naming
    neither the endpoint nor what happened. Both now say the answer was cut off, and where; the fault stays
    transient (another try may get the whole answer)."""
    server = fake_anthropic if provider == "anthropic" else fake_openai
    server.script(default=lambda req: trickle(text("a fairly long answer"), every=0.01, limit=0.1))
    env = fake_anthropic.env() if provider == "anthropic" else fake_openai.env("OPENAI")
    model = provider_for(f"{provider}:m", env=env)
    model.max_retries = 0
    with pytest.raises(ModelError, match=r"closed before the answer was complete") as caught:
        model.complete(CALL)
    assert server.url in str(caught.value)
    helper = _anthropic_helper(fake_anthropic) if provider == "anthropic" else _openai_helper(fake_openai)
    with pytest.raises(p.TransientHelperError, match=r"closed before the answer was complete"):
        helper.vet(VET)


@pytest.mark.parametrize("provider, base, path", [("anthropic", "/v1", "/v1/v1/messages"),
                                                  ("openai", "", "/chat/completions")])
def test_a_404_names_the_url_it_was_sent_to(fake_anthropic, fake_openai, provider, base, path):
    """A real endpoint's 404 says 'Not Found' and no more: with a base URL a path too many (ANTHROPIC_BASE_URL
    ending /v1) or too few (OPENAI_BASE_URL without /v1) the line gave nothing to go on."""
    server = fake_anthropic if provider == "anthropic" else fake_openai  # the fakes 404 any other path
    prefix = provider.upper()
    env = {f"{prefix}_BASE_URL": server.url + base, f"{prefix}_API_KEY": "sk-test-key"}
    with pytest.raises(ModelError, match=f"answered 404 at {server.url}{path}: "):
        provider_for(f"{provider}:m", env=env).complete(CALL)


@pytest.mark.parametrize("code, transient", [(429, True), (502, True), (400, False), ("bad_key", False)])
def test_an_error_sent_as_a_200_is_read_as_the_error_it_is(fake_openai, code, transient):
    """OpenRouter sends an upstream provider's failure as HTTP 200 with an error body. It read as 'the API
    sent no choices: b'{"error": ...' and was always retried; its own message and code now decide."""
    import json

    from fakes import Reply

    body = json.dumps({"error": {"message": "Provider returned error", "code": code}}).encode()
    fake_openai.script(default=lambda req: Reply(raw=body))
    helper = resolve_helper("openrouter:z-ai/glm-5", env={"OPENROUTER_BASE_URL": fake_openai.url + "/v1",
                                                         "OPENROUTER_API_KEY": "sk-or-test"})
    kind = p.TransientHelperError if transient else p.PermanentHelperError
    with pytest.raises(kind, match="answered 200 with an error.*Provider returned error"):
        helper.vet(VET)


def test_a_retry_after_given_as_a_date_is_waited_for(fake_openai, monkeypatch):
    """RFC 9110 allows Retry-After as an HTTP date; it was ignored (the 1 s back-off instead)."""
    import email.utils
    import time

    import agentuse.runtime.providers as providers

    waits: list[float] = []
    monkeypatch.setattr(providers.time, "sleep", waits.append)
    fake_openai.script(lambda req: error(429, "rate_limit_error", "slow down", headers={
        "retry-after": email.utils.formatdate(time.time() + 30, usegmt=True)}), text("fine"))
    reply = provider_for("openai:m", env=fake_openai.env("OPENAI")).complete(CALL)
    assert reply.content[0].text == "fine" and len(waits) == 1 and 20 < waits[0] <= 30
