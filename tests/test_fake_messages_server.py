"""The fake Messages API speaks enough of the protocol for the real anthropic SDK, over real HTTP."""

from __future__ import annotations

import threading

import anthropic
import pytest

from fakes import overloaded, rate_limited, text, tool_use, unauthorized
from fakes.messages_server import Reply


def client(server, **kw):
    kw.setdefault("max_retries", 0)
    kw.setdefault("timeout", 5.0)
    return anthropic.Anthropic(api_key="sk-ant-fake", base_url=server.url, **kw)


def test_text_reply_and_record(fake_anthropic):
    fake_anthropic.script(text("hello", input_tokens=5, output_tokens=2))
    msg = client(fake_anthropic).messages.create(
        model="claude-x", max_tokens=10, system="be brief", messages=[{"role": "user", "content": "hi"}]
    )
    assert msg.content[0].text == "hello"
    assert (msg.usage.input_tokens, msg.usage.output_tokens) == (5, 2)
    [req] = fake_anthropic.requests
    assert req.path == "/v1/messages" and req.body["model"] == "claude-x"
    # This SDK release sends the key as a bearer token; older ones used x-api-key.
    assert "sk-ant-fake" in (req.headers.get("x-api-key", "") + req.headers.get("authorization", ""))
    assert "be brief" in req.text and "hi" in req.text
    assert req.ended >= req.started > 0


def test_tool_use_reply_with_function_script(fake_anthropic):
    fake_anthropic.script(default=lambda req: tool_use(req.forced_tool, {"echo": req.body["max_tokens"]}))
    msg = client(fake_anthropic).messages.create(
        model="m", max_tokens=33, messages=[{"role": "user", "content": "x"}],
        tools=[{"name": "answer", "input_schema": {"type": "object"}}],
        tool_choice={"type": "tool", "name": "answer"},
    )
    block = msg.content[-1]
    assert block.type == "tool_use" and block.name == "answer" and block.input == {"echo": 33}
    assert msg.stop_reason == "tool_use"
    assert fake_anthropic.requests[0].forced_tool == "answer"


def test_streaming_reply(fake_anthropic):
    fake_anthropic.script(tool_use("answer", {"a": [1, 2]}, preamble="thinking"))
    with client(fake_anthropic).messages.stream(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}]
    ) as stream:
        final = stream.get_final_message()
    assert final.content[0].text == "thinking"
    assert final.content[1].input == {"a": [1, 2]}


@pytest.mark.parametrize(
    "reply, exc, status",
    [
        (overloaded(), anthropic.InternalServerError, 529),
        (rate_limited(), anthropic.RateLimitError, 429),
        (unauthorized(), anthropic.AuthenticationError, 401),
    ],
)
def test_error_statuses(fake_anthropic, reply, exc, status):
    fake_anthropic.script(reply)
    with pytest.raises(exc) as info:
        client(fake_anthropic).messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}])
    assert info.value.status_code == status


def test_sdk_retries_honour_retry_after_ms(fake_anthropic):
    fake_anthropic.script(overloaded(retry_after_ms=1), rate_limited(retry_after_ms=1), text("ok"))
    msg = client(fake_anthropic, max_retries=2).messages.create(
        model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}]
    )
    assert msg.content[0].text == "ok"
    assert len(fake_anthropic.requests) == 3 and fake_anthropic.pending == 0


def test_delay_causes_client_timeout(fake_anthropic):
    fake_anthropic.script(text("late", delay=5))
    with pytest.raises(anthropic.APITimeoutError):
        client(fake_anthropic, timeout=0.2).messages.create(
            model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}]
        )


def test_unscripted_call_is_a_loud_400(fake_anthropic):
    with pytest.raises(anthropic.BadRequestError, match="no reply scripted"):
        client(fake_anthropic).messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}])


def test_concurrent_calls_overlap(fake_anthropic):
    # Each reply is held until both calls have arrived: only possible if the server serves them at once.
    arrived = threading.Barrier(2, timeout=5)

    def hold(req):
        arrived.wait()
        return text(f"call {req.index}")

    fake_anthropic.script(default=hold)
    c = client(fake_anthropic)
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(
            c.messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}])))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    a, b = fake_anthropic.requests
    assert len(results) == 2
    assert a.started < b.ended and b.started < a.ended  # the two calls were in flight together


def test_raw_body_that_is_not_json(fake_anthropic):
    # The SDK surfaces a garbled body as a JSON decode error (a ValueError), not an APIError.
    fake_anthropic.script(Reply(raw=b"{not json"))
    with pytest.raises(ValueError):
        client(fake_anthropic).messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}])
