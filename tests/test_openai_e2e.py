"""A user with only an OpenAI key, or only a local Ollama: run an agent (tools included), review it with
`--remember`, add a learning and tidy, every model call over real HTTP to the fake Chat Completions API."""

from __future__ import annotations

import json
import re

import pytest
from fakes import json_answer, text, tool_use, session_id_in
from agentuse.core import store
from agentuse.core.learning import State

AGENT = """---
model: {model}
approval: true
learning:
  apply: true{helper}
---

# Blog Writer

Write short productivity blog posts and save each one under `posts/`.
"""


def learning_model(req):
    """A model that answers every helper operation sensibly, reading ids from the rendered request."""
    name = req.forced_tool or req.schema_name
    operation = name.removeprefix("submit_")
    user = req.body["messages"][-1]["content"]
    rules = re.findall(r'<rule id="([^"]+)"', user)
    if operation == "vet":
        ids = re.findall(r'<candidate id="([^"]+)"', user)
        answer = {"verdicts": [{"id": i, "verdict": "pass"} for i in ids]}
    elif operation == "ground":
        answer = {"rule": {"category": "tip", "title": "Link every source before publishing",
                           "body": "Before publishing, link every source the post uses."}}
    elif operation == "reconcile":
        answer = {"action": "new"}
    elif operation == "extract":
        answer = {"candidates": []}
    elif operation == "plan_groups":
        answer = {"moves": [{"kind": "merge", "ids": rules[:2], "reason": "same rule"}]}
    elif operation == "rewrite_group":
        answer = {"rule": {"category": "tip", "title": "Link every source a post uses before publishing"},
                  "covers": rules}
    elif operation == "audit":
        answer = {"missing": []}
    else:  # rewrite_block
        answer = {"rules": [], "dropped": []}
    return tool_use(name, answer) if req.forced_tool else json_answer(answer)


def agent_file(tmp_path, model: str, helper: str = "") -> "Path":  # noqa: F821
    root = tmp_path / "project"
    (root / "posts").mkdir(parents=True)
    path = root / "blog.agentuse"
    path.write_text(AGENT.format(model=model, helper=f"\n  model: {helper}" if helper else ""))
    return path


def test_only_an_openai_key_runs_reviews_and_remembers(tmp_path, fake_openai, monkeypatch, invoke):
    for key, value in fake_openai.env("OPENAI").items():
        monkeypatch.setenv(key, value)
    agent = agent_file(tmp_path, "openai:gpt-test")
    fake_openai.script(
        tool_use("write_file", {"path": "/posts/focus.md", "content": "# Focus\n"}, preamble="Saving."),
        tool_use("write_file", {"path": "posts/focus.md", "content": "# Focus\n"}),
        text("Saved the post to posts/focus.md", input_tokens=50, output_tokens=12),
    )
    result = invoke("run", agent, "Write about focus")
    sid = session_id_in(result.stdout)
    assert (agent.parent / "posts" / "focus.md").read_text() == "# Focus\n"
    first, second, third = fake_openai.requests
    assert first.path == "/v1/chat/completions" and first.headers["authorization"] == "Bearer sk-fake-openai"
    assert first.body["model"] == "gpt-test"
    assert first.body["messages"][0]["role"] == "system" and first.body["messages"][0]["content"].startswith("# Blog Writer")
    assert first.body["messages"][1] == {"role": "user", "content": "Write about focus"}
    assert [t["function"]["name"] for t in first.body["tools"]] == ["read_file", "write_file", "list_dir", "run_shell"]
    assistant, tool = second.body["messages"][-2:]
    assert assistant["content"] == "Saving." and assistant["tool_calls"][0]["function"]["name"] == "write_file"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"])["path"] == "/posts/focus.md"
    assert tool["role"] == "tool" and tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert tool["content"].startswith("Error: path '/posts/focus.md' is outside the project root")
    assert not third.body["messages"][-1]["content"].startswith("Error:")

    # Review with --remember: the note is grounded, vetted and reconciled by the agent's own model.
    fake_openai.reset()
    fake_openai.script(default=learning_model)
    invoke("sessions", "resume", sid, "--approve", "--remember", "Always include source links before publishing.")
    assert [r.forced_tool for r in fake_openai.requests] == [
        "submit_ground", "submit_audit", "submit_reconcile", "submit_vet"]
    [rule] = store.load(store.locate(agent)).learnings
    assert (rule.title, rule.state) == ("Link every source before publishing", State.active)

    # Tidy with the same key: the planner, the writer, the vet and the audit are OpenAI calls too.
    invoke("learnings", "add", agent, "Link every source a post cites.")
    fake_openai.reset()
    fake_openai.script(default=learning_model)
    tidy = invoke("learnings", "tidy", agent)
    assert [r.forced_tool for r in fake_openai.requests] == [
        "submit_plan_groups", "submit_rewrite_group", "submit_vet", "submit_audit"]
    assert "1 merged, 0 rewritten, 0 retired, 0 quarantined, 0 now permanent — 2 → 1 in force" in tidy.stdout
    assert "offline evaluator" not in tidy.stdout + tidy.stderr


def test_only_a_local_ollama_runs_an_agent_with_tools_and_reviews_it(tmp_path, fake_openai, monkeypatch, invoke):
    for key, value in fake_openai.env("OLLAMA", api_key=None).items():
        monkeypatch.setenv(key, value)
    agent = agent_file(tmp_path, "ollama:qwen3.5:0.8b")
    fake_openai.script(
        tool_use("write_file", {"path": "posts/focus.md", "content": "# Focus\n"}),
        text("Saved the post to posts/focus.md"),
    )
    result = invoke("run", agent, "Write about focus")
    sid = session_id_in(result.stdout)
    assert (agent.parent / "posts" / "focus.md").read_text() == "# Focus\n"
    first, _ = fake_openai.requests
    assert first.path == "/v1/chat/completions" and first.body["model"] == "qwen3.5:0.8b"
    assert "content-type" in first.headers and "authorization" not in first.headers  # a local endpoint needs no key

    fake_openai.reset()
    fake_openai.script(default=learning_model)
    invoke("sessions", "resume", sid, "--approve", "--remember", "Always include source links before publishing.")
    assert [r.schema_name for r in fake_openai.requests] == [
        "submit_ground", "submit_audit", "submit_reconcile", "submit_vet"]
    [rule] = store.load(store.locate(agent)).learnings
    assert (rule.title, rule.state) == ("Link every source before publishing", State.active)


def test_a_local_ollama_judges_learnings_add_and_tidy(tmp_path, fake_openai, monkeypatch, invoke):
    # The agent runs on Anthropic (no key here: the run is not part of this test); the helper is local.
    for key, value in fake_openai.env("OLLAMA", api_key=None).items():
        monkeypatch.setenv(key, value)
    agent = agent_file(tmp_path, "anthropic:claude-test", helper='"ollama:qwen3.5:0.8b"')
    fake_openai.script(default=learning_model)
    doctor = invoke("doctor", agent).stdout
    assert "judge: the model ollama:qwen3.5:0.8b" in doctor
    assert "model: anthropic:claude-test (provider anthropic, ANTHROPIC_API_KEY is not set: runs need it)" in doctor
    assert not fake_openai.requests  # doctor asks nothing
    invoke("learnings", "add", agent, "Always include source links before publishing.")
    invoke("learnings", "add", agent, "Link every source a post cites.")
    # A local model answers by JSON schema (no forced tool call).
    assert [r.schema_name for r in fake_openai.requests] == 2 * [
        "submit_ground", "submit_audit", "submit_reconcile", "submit_vet"]
    assert {r.body["model"] for r in fake_openai.requests} == {"qwen3.5:0.8b"}
    assert len([r for r in store.load(store.locate(agent)).learnings if r.state is State.active]) == 2
    fake_openai.reset()
    fake_openai.script(default=learning_model)
    tidy = invoke("learnings", "tidy", agent)
    assert "Done" in tidy.stdout, tidy.stdout
    assert [r.schema_name for r in fake_openai.requests] == [
        "submit_plan_groups", "submit_rewrite_group", "submit_vet", "submit_audit"]
    assert "1 merged, 0 rewritten, 0 retired, 0 quarantined, 0 now permanent — 2 → 1 in force" in tidy.stdout
    [merged] = [r for r in store.load(store.locate(agent)).learnings if r.state is State.active]
    assert merged.title == "Link every source a post uses before publishing"
    assert "offline evaluator" not in tidy.stdout + tidy.stderr


@pytest.mark.parametrize("model, env, line", [
    ("openai:gpt-test", {}, "error: OPENAI_API_KEY is not set: the model openai:gpt-test needs it."),
    ("openrouter:z-ai/glm-5.2", {}, "error: OPENROUTER_API_KEY is not set: the model openrouter:z-ai/glm-5.2 needs it."),
    ("anthropic:claude-test:dev", {"ANTHROPIC_API_KEY": "k"},
     "error: ANTHROPIC_API_KEY_DEV is not set: the model anthropic:claude-test:dev needs it."),
    ("vllm:llama", {}, "error: model 'vllm:llama' is not one agentuse can run: the \"vllm\" provider is not one"),
    ("bedrock:amazon.nova-pro-v1:0", {"AWS_REGION": "us-east-1"},
     "error: no AWS credentials found for bedrock:amazon.nova-pro-v1:0: set AWS_PROFILE"),
])
def test_a_run_without_its_key_or_endpoint_is_one_line(tmp_path, monkeypatch, invoke, model, env, line):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    result = invoke("run", agent_file(tmp_path, model), "Write", code=1)
    assert result.stderr.startswith(line) and len(result.stderr.strip().splitlines()) == 1, result.stderr
