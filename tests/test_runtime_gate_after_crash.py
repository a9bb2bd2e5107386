"""A run killed between its approval request and the run_end after it (two appends, each fsynced) had
done its work and asked for review: the session is awaiting review, and the gate can be answered. It read
'crashed', and resume refused it ('only a session awaiting review can be resumed'), so the recorded work
could never be approved."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agentuse.core import store
from agentuse.runtime.approval import find_session
from agentuse.runtime.events import (ApprovalRequest, ModelReplyEvent, ModelRequestEvent, RunStart)
from agentuse.runtime.messages import TextBlock
from agentuse.runtime.session import SessionLog

pytestmark = pytest.mark.usefixtures("offline_helper")

SID = "01K8ZGATECRASH000000000000"


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_run_killed_right_after_asking_for_review_can_be_approved(tmp_path, invoke):
    root = tmp_path / "project"
    root.mkdir()
    agent = root / "w.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-test\napproval: true\n---\n\nWrite the post.\n")
    location = store.locate(agent)
    log = SessionLog.create(location.session_dir, SID)
    log.append(RunStart(session_id=SID, agent_key=location.key, agent_path=str(agent), project_root=str(root),
                        ih="0" * 12, model="anthropic:claude-test", prompt="go", system="Write the post.\n",
                        approval=True, pid=dead_pid()))
    log.append(ModelRequestEvent(model="anthropic:claude-test", turn=1, messages=1))
    log.append(ModelReplyEvent(content=[TextBlock(text="The post.")], stop_reason="end_turn"))
    log.append(ApprovalRequest(output="The post.", round=1))  # killed here, before its run_end
    assert find_session(SID).status == "awaiting_review"
    result = invoke("sessions", "resume", SID, "--approve")
    assert f"session {SID} · completed" in result.stdout
    assert find_session(SID).status == "completed"
