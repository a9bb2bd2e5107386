"""A model reply cut off at its output limit (stop_reason max_tokens, OpenAI's finish_reason length) is
incomplete work: its tool calls are not run (their input is cut short: a write_file of half a document),
the model is told and asked to go on, and a final answer is the whole text, never the cut-off part.
Driven through `agentuse run` against the fake model servers over real HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import text, tool_use, session_id_in

from agentuse.runtime.approval import find_session
from agentuse.runtime.loop import CUT_OFF_CONTINUE, conversation_from
from agentuse.runtime.session import read_events
from agentuse.runtime.trace import trace_from_session

pytestmark = pytest.mark.usefixtures("offline_helper")

AGENT = """---
model: {model}
learning:
  capture:
    addons: [tool-errors]
---

# Writer

Write each post as a markdown file under `posts/`.
"""


def make_agent(tmp_path, model="anthropic:claude-test"):
    root = tmp_path / "project"
    (root / "posts").mkdir(parents=True)
    agent = root / "w.agentuse"
    agent.write_text(AGENT.format(model=model))
    return agent


def tool_results(request):
    return [b for m in request.body["messages"] for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"]


def test_a_tool_call_cut_off_at_the_output_limit_is_not_run(tmp_path, cli, fake_anthropic):
    agent = make_agent(tmp_path)
    fake_anthropic.script(
        tool_use("write_file", {"path": "posts/a.md", "content": "# Half a po"}, stop_reason="max_tokens"),
        tool_use("write_file", {"path": "posts/a.md", "content": "# A whole post\n"}),
        text("Saved posts/a.md"),
    )
    result = cli("run", str(agent), "go")
    assert result.stdout.startswith("Saved posts/a.md\n")
    assert (agent.parent / "posts" / "a.md").read_text() == "# A whole post\n"  # never the half
    [cut] = tool_results(fake_anthropic.requests[1])
    assert cut["is_error"] and "cut off at the output limit" in cut["content"] and "not run" in cut["content"]
    session = find_session(session_id_in(result.stdout))
    # The model's mistake is not a tool failure: the tool-errors channel learns nothing from it.
    calls = trace_from_session(Path(session.path)).calls
    assert [(c.tool, c.ok) for c in calls] == [("write_file", True)]
    assert "Extracted 0 learning(s), 0 quarantined — nothing new stored" in result.stdout


def test_a_final_answer_cut_off_is_continued_and_shown_whole(tmp_path, cli, fake_anthropic):
    agent = make_agent(tmp_path)
    fake_anthropic.script(text("Here is the po", stop_reason="max_tokens"), text("st, whole."))
    result = cli("run", str(agent), "go")
    assert result.stdout.startswith("Here is the post, whole.\n")
    second = fake_anthropic.requests[1].body["messages"]
    assert second[-1] == {"role": "user", "content": [{"type": "text", "text": CUT_OFF_CONTINUE}]}
    session = find_session(session_id_in(result.stdout))
    assert session.output == "Here is the post, whole."
    # A resume rebuilds the conversation from the log: the same messages the live loop sent.
    rebuilt = [m.model_dump(mode="json") for m in conversation_from(read_events(Path(session.path))[0])]
    assert rebuilt[:len(second)] == second


def test_a_cut_off_openai_tool_call_is_not_run(tmp_path, invoke, fake_openai, monkeypatch):
    for key, value in fake_openai.env("OPENAI").items():
        monkeypatch.setenv(key, value)
    agent = make_agent(tmp_path, model="openai:gpt-test")
    # Chat Completions cuts the arguments' JSON text itself: not JSON at all.
    fake_openai.script(
        tool_use("write_file", '{"path": "posts/a.md", "content": "# Half', stop_reason="max_tokens"),
        tool_use("write_file", {"path": "posts/a.md", "content": "# Whole\n"}),
        text("Saved"),
    )
    result = invoke("run", agent, "go")
    assert result.stdout.startswith("Saved\n")
    assert (agent.parent / "posts" / "a.md").read_text() == "# Whole\n"
    [cut] = [m for m in fake_openai.requests[1].body["messages"] if m["role"] == "tool"]
    assert "cut off at the output limit" in cut["content"]
