"""A helper answer nested deeper than Python's JSON parser follows (review 22d).

The parser raises RecursionError, not ValueError, for a body or a tool's arguments some thousands of lists
deep; every reader of a helper's reply caught ValueError only, so a hostile or broken endpoint ended the
command with a traceback. For `learnings add` that lost the person's note, which is meant to fail open.
Each provider's helper, over real HTTP against its fake, now answers a fault of the protocol."""

from __future__ import annotations

import json
import os
import re

import pytest
from capture_support import make_agent, stored
from fakes import Reply, tool_use

from agentuse.core.helper import deadline
from agentuse.core.helper import protocol as p
from agentuse.core.helper.factory import resolve_helper
from agentuse.core.learning import Source

DEPTH = 100_000
DEEP = "[" * DEPTH + "]" * DEPTH


def _message(tool_input: str) -> bytes:
    return ('{"id": "m1", "type": "message", "role": "assistant", "model": "claude-test", "stop_reason": "tool_use", '
            '"usage": {"input_tokens": 1, "output_tokens": 1}, "content": [{"type": "tool_use", "id": "t1", '
            f'"name": "submit_ground", "input": {tool_input}}}]}}').encode()


def test_a_ground_answer_nested_past_the_parser_saves_the_note_as_written(tmp_path, cli, fake_anthropic):
    agent = make_agent(tmp_path / "p", "learning: true")

    def model(request):
        tool = request.forced_tool
        if tool == "submit_ground":
            return Reply(raw=_message('{"rule": {"title": "Keep intros short"}, "notes": ' + DEEP + "}"))
        ids = re.findall(r'<candidate id="([^"]+)"', request.text)
        return tool_use(tool, {"action": "new"} if tool == "submit_reconcile" else
                        {"verdicts": [{"id": i, "verdict": "pass"} for i in ids]})

    fake_anthropic.script(default=model)
    added = cli("learnings", "add", agent, "Keep intros under 50 words")
    assert "nested" in added.stdout, added.stdout
    [saved] = stored(agent)
    assert (saved.text, saved.src) == ("Keep intros under 50 words", Source.manual)


def _ground(helper):
    return helper.ground(p.GroundRequest(comment="Keep intros under 50 words"))


def _completion(arguments: str | None = None, *, body: str | None = None) -> bytes:
    call = {"id": "c1", "type": "function", "function": {"name": "submit_ground", "arguments": arguments}}
    return (body or json.dumps({"id": "x", "object": "chat.completion", "model": "gpt-test",
                                "choices": [{"index": 0, "finish_reason": "tool_calls",
                                             "message": {"role": "assistant", "content": None, "tool_calls": [call]}}],
                                "usage": {"prompt_tokens": 1, "completion_tokens": 1}})).encode()


@pytest.mark.parametrize("raw", [
    _completion('{"rule": {"title": "x"}, "notes": ' + DEEP + "}"),
    _completion(body='{"choices": ' + DEEP + "}"),
], ids=["arguments", "body"])
def test_chat_completions_answers_nested_past_the_parser_are_a_helper_fault(fake_openai, raw):
    fake_openai.script(Reply(raw=raw))
    helper = resolve_helper("openai:gpt-test", env={**fake_openai.env("OPENAI"), deadline.TIMEOUT_VARIABLE: "5"})
    with pytest.raises(p.HelperError, match="nested"):
        _ground(helper)


def test_a_bedrock_reply_nested_past_the_parser_is_a_helper_fault(fake_bedrock, monkeypatch):
    for key, value in fake_bedrock.env().items():
        monkeypatch.setenv(key, value)
    fake_bedrock.script(Reply(raw=('{"output": {"message": {"role": "assistant", "content": ' + DEEP + "}}}").encode()))
    helper = resolve_helper("bedrock:anthropic.claude-sonnet-5-v1:0",
                            env={**os.environ, deadline.TIMEOUT_VARIABLE: "5"})
    with pytest.raises(p.HelperError, match="nested"):
        _ground(helper)
