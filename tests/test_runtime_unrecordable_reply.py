"""A model reply the session log cannot hold (a tool input nested past the JSON serializer's depth limit,
as a hostile endpoint or a prompt-injected model can send) ends the run failed in one line, its log
readable; it escaped as a bare ValueError traceback."""

from __future__ import annotations

import pytest
from fakes import text, tool_use

from agentuse.runtime.approval import find_session

pytestmark = pytest.mark.usefixtures("offline_helper")


def nested(depth: int):
    value = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("provider, depth", [("anthropic", 700), ("openai", 700), ("openai", 5000)])
def test_a_reply_nested_too_deep_to_record_fails_the_run_plainly(tmp_path, invoke, request, monkeypatch,
                                                                provider, depth):
    server = request.getfixturevalue(f"fake_{provider}")
    for key, value in server.env().items():
        monkeypatch.setenv(key, value)
    model = f"{provider}:gpt-test" if provider == "openai" else "anthropic:claude-test"
    root = tmp_path / "project"
    root.mkdir()
    agent = root / "w.agentuse"
    agent.write_text(f"---\nmodel: {model}\n---\n\nList the project.\n")
    arguments = {"path": nested(depth)}
    # Past ~1,000 levels the JSON text itself is sent (Python's own serializer refuses to write it).
    sent = arguments if depth < 1000 else '{"path": ' + "[" * depth + "1" + "]" * depth + "}"
    server.script(tool_use("list_dir", sent), text("done"))
    result = invoke("run", agent, "go", code=1)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: the run failed: {model}: ")
    assert "depth" in line or "not JSON" in line or "could not be recorded" in line
    sid = line.rsplit("session ", 1)[1].rstrip(")")
    session = find_session(sid)
    assert session.status == "failed" and session.notes == []
    assert len(server.requests) == 1  # nothing of that reply was run
