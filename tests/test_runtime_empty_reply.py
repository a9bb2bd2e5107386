"""A model's turn may end with no text at all (Anthropic answers `content: []` with end_turn after a tool
result, a known behaviour). The Messages API refuses a later request holding that empty assistant message
('all messages must have non-empty content'), or a whitespace-only text block, so every revision of such
a session failed. The conversation sent leaves them out and keeps user turns one message each; the log
keeps the reply as it came. The fake server here checks what the real API checks."""

from __future__ import annotations

import pytest
from fakes import text, tool_use, session_id_in
from fakes.messages_server import Reply

from agentuse.runtime.approval import find_session

pytestmark = pytest.mark.usefixtures("offline_helper")


def sendable(messages: list[dict]) -> bool:
    """The Messages API's rules: roles alternate, no message is empty, no text block is blank."""
    roles = [m["role"] for m in messages]
    alternate = all(a != b for a, b in zip(roles, roles[1:]))
    filled = all(m["content"] for m in messages)
    texts = all(b.get("text", "x").strip() for m in messages for b in m["content"] if b.get("type") == "text")
    return alternate and filled and texts


@pytest.mark.parametrize("empty", [Reply(content=[]), text("  \n")])
def test_a_revision_after_an_empty_final_reply_sends_a_valid_conversation(tmp_path, cli, fake_anthropic, empty):
    root = tmp_path / "project"
    (root / "posts").mkdir(parents=True)
    agent = root / "w.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-test\napproval: true\n---\n\nWrite posts under posts/.\n")
    fake_anthropic.script(tool_use("write_file", {"path": "posts/a.md", "content": "# A\n"}), empty)
    sid = session_id_in(cli("run", str(agent), "go").stdout)
    fake_anthropic.script(text("Revised: posts/a.md now cites its sources."))
    revised = cli("sessions", "resume", sid, "--comment", "Cite your sources")
    assert "Revised: posts/a.md now cites its sources." in revised.stdout
    sent = fake_anthropic.requests[-1].body["messages"]
    assert sendable(sent), sent
    assert "Cite your sources" in sent[-1]["content"][-1]["text"]
    assert find_session(sid).status == "awaiting_review"
