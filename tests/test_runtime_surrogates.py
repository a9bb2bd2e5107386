"""Text the session log cannot write as UTF-8: a lone surrogate. A file name that is not UTF-8 (a Latin-1
name from an old archive) comes back from the file system as one (Python's surrogateescape), and a model's
JSON may hold one (half an emoji's escape pair). Either made the log's append raise, a bare traceback that
ended the run. The tool result and the reply are recorded with U+FFFD in their place and the run goes on."""

from __future__ import annotations

import os
import sys

import pytest
from fakes import text, tool_use, session_id_in

from agentuse.runtime.approval import find_session

pytestmark = [pytest.mark.usefixtures("offline_helper"),
              pytest.mark.skipif(sys.platform == "darwin", reason="APFS refuses names that are not UTF-8")]


def make_agent(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    agent = root / "w.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-test\n---\n\nList the project.\n")
    return agent


def test_a_file_name_that_is_not_utf8_is_listed(tmp_path, cli, fake_anthropic):
    agent = make_agent(tmp_path)
    with open(os.path.join(os.fsencode(agent.parent), b"caf\xe9.txt"), "w") as handle:
        handle.write("x")
    fake_anthropic.script(tool_use("list_dir", {"path": "."}), text("Listed."))
    result = cli("run", str(agent), "go")
    assert result.stdout.startswith("Listed.\n")
    [call] = find_session(session_id_in(result.stdout)).tool_calls
    assert "caf\ufffd.txt" in call.output and not call.is_error


def test_a_lone_surrogate_in_a_model_reply_is_recorded(tmp_path, cli, fake_anthropic):
    agent = make_agent(tmp_path)
    fake_anthropic.script(tool_use("list_dir", {"path": ".\ud83d"}), text("Done \ud83d"))
    result = cli("run", str(agent), "go")
    assert result.stdout.startswith("Done \ufffd\n")
    session = find_session(session_id_in(result.stdout))
    assert session.status == "completed" and session.notes == []
