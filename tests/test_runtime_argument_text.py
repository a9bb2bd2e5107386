"""A prompt, comment or note given on the command line holding a byte that is not UTF-8 (a Latin-1 file
read into "$(cat notes.txt)"; Python hands it over as a lone surrogate) is refused in one line before
anything is written. It raised PydanticSerializationError as a traceback and left an empty session log
that `sessions list` showed as crashed."""

from __future__ import annotations

import pytest
from fakes import text, session_id_in

from agentuse.core import store
from agentuse.runtime.approval import find_session
from agentuse.runtime.session import list_logs

pytestmark = pytest.mark.usefixtures("offline_helper")

LATIN1 = "caf\udce9"  # b"caf\xe9" as Python decodes argv


def make_agent(tmp_path, approval="false"):
    root = tmp_path / "project"
    root.mkdir()
    agent = root / "w.agentuse"
    agent.write_text(f"---\nmodel: anthropic:claude-test\napproval: {approval}\n---\n\nWrite the post.\n")
    return agent


def test_a_prompt_that_is_not_utf8_is_refused_before_a_session_starts(tmp_path, cli, fake_anthropic):
    agent = make_agent(tmp_path)
    result = cli("run", str(agent), LATIN1, code=1)
    assert result.stderr.strip() == ("error: the prompt is not UTF-8 text (byte 0xe9 at character 4): "
                                     "give it as UTF-8 (iconv -f latin1 -t utf-8, say)")
    assert list_logs([store.locate(agent).session_dir]) == [] and fake_anthropic.requests == []


@pytest.mark.parametrize("flags, what", [(["--comment", LATIN1], "--comment"),
                                         (["--approve", "--remember", LATIN1], "--remember")])
def test_a_comment_or_note_that_is_not_utf8_leaves_the_gate_unanswered(tmp_path, cli, fake_anthropic,
                                                                      flags, what):
    agent = make_agent(tmp_path, approval="true")
    fake_anthropic.script(text("The post."))
    sid = session_id_in(cli("run", str(agent), "go").stdout)
    result = cli("sessions", "resume", sid, *flags, code=1)
    assert result.stderr.strip().startswith(f"error: {what} is not UTF-8 text (byte 0xe9 at character 4)")
    assert find_session(sid).status == "awaiting_review"


def test_a_rule_added_by_hand_that_is_not_utf8_is_refused(tmp_path, cli):
    agent = make_agent(tmp_path)
    result = cli("learnings", "add", str(agent), f"Use {LATIN1} names", code=1)
    assert result.stderr.strip().startswith("error: the rule is not UTF-8 text (byte 0xe9 at character 8)")
    assert not store.locate(agent).store_path.exists()
