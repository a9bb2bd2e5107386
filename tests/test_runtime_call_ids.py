"""Tool calls are told apart by their position in the run, not only by the id a server gives them: a
Chat Completions server that sends no call ids (or the same one every turn) still gets a conversation
whose calls it can tell apart, and the tool-errors channel still sees a failed call and its correction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes import session_id_in
from fakes.messages_server import Reply

from agentuse.runtime.approval import find_session
from agentuse.runtime.trace import trace_from_session

pytestmark = pytest.mark.usefixtures("offline_helper")

AGENT = """---
model: local:tiny
learning:
  capture:
    addons: [tool-errors]
---

# Writer

Write each post as a markdown file under `posts/`.
"""


def completion(message: dict, finish: str) -> Reply:
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "tiny",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}
    return Reply(raw=json.dumps(body).encode())


def call_without_id(name: str, arguments: dict) -> Reply:
    return completion({"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}, "tool_calls")


def test_calls_without_ids_are_kept_apart(tmp_path, invoke, fake_openai, monkeypatch):
    for key, value in fake_openai.env("LOCAL", api_key=None).items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "project"
    (root / "posts").mkdir(parents=True)
    agent = root / "w.agentuse"
    agent.write_text(AGENT)
    fake_openai.script(
        call_without_id("write_file", {"path": "/posts/a.md", "content": "# A\n"}),  # outside the root: fails
        call_without_id("write_file", {"path": "posts/a.md", "content": "# A\n"}),
        completion({"role": "assistant", "content": "Saved posts/a.md"}, "stop"),
    )
    result = invoke("run", agent, "go")
    assert result.stdout.startswith("Saved posts/a.md\n")
    sent = fake_openai.requests[2].body["messages"]
    ids = [c["id"] for m in sent if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    assert len(ids) == 2 and len(set(ids)) == 2  # two calls, two ids
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == ids
    session = find_session(session_id_in(result.stdout))
    calls = trace_from_session(Path(session.path)).calls
    assert [(c.input["path"], c.ok) for c in calls] == [("/posts/a.md", False), ("posts/a.md", True)]
    assert "Extracted 1 learning(s), 0 quarantined" in result.stdout  # the recovery is learned
    assert [(c.input["path"], c.is_error) for c in session.tool_calls] == [("/posts/a.md", True), ("posts/a.md", False)]


def test_a_reused_call_id_is_two_calls_in_the_trace(tmp_path):
    from agentuse.runtime.session import SessionLog
    from agentuse.runtime.summary import summarize

    # A log whose server gave every turn's call the same id (one written before this fix, or a server's
    # own): each result goes with the call just before it.
    from agentuse.runtime.events import RunStart, ToolCallEvent, ToolResultEvent
    from agentuse.runtime.trace import trace_from_events

    events = [RunStart(session_id="s", agent_key="a", agent_path="/a", project_root="/", ih="0", model="m",
                       prompt="go", system="", pid=1),
              ToolCallEvent(call_id="call_0", name="write_file", input={"path": "/a"}),
              ToolResultEvent(call_id="call_0", name="write_file", error="outside", is_error=True),
              ToolCallEvent(call_id="call_0", name="write_file", input={"path": "a"}),
              ToolResultEvent(call_id="call_0", name="write_file", output="wrote")]
    calls = trace_from_events(events).calls
    assert [(c.input, c.ok) for c in calls] == [({"path": "/a"}, False), ({"path": "a"}, True)]
    # sessions show lists both calls, each with its own result, as the trace does.
    log = SessionLog.create(tmp_path, "01K8ZREUSEDID0000000000000")
    for event in events:
        log.append(event)
    shown = summarize(log.path).tool_calls
    assert [(c.input, c.is_error) for c in shown] == [({"path": "/a"}, True), ({"path": "a"}, False)]
