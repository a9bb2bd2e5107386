"""Session logs written event by event, as the runner and a resume write them, for the effectiveness
tests (issue 18): each run is counted into the index where the runner counts it (start, and every end)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.inject import render_section
from agentuse.runtime import effectiveness as counting
from agentuse.runtime.events import (
    ApprovalDecision,
    ApprovalRequest,
    RoundStart,
    RunEnd,
    RunStart,
    ToolCallEvent,
    ToolResultEvent,
)
from agentuse.runtime.session import SessionLog

from capture_support import current_ih

UPLOAD_SIG = "files.length remained #"


def invoke(*args: str, code: int = 0):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return result


def stats_json(agent: Path, *extra: str) -> dict:
    return json.loads(invoke("learnings", "stats", str(agent), "--json", *extra).stdout)


def system_for(agent: Path, injected: list[str]) -> str:
    """The system prompt's rules section as the runner renders it (the rules in the order they are sent)."""
    by_id = {r.id: r for r in store.load(store.locate(agent)).learnings}
    return "# Agent\n\n" + render_section([by_id[i] for i in injected if i in by_id])


class Run:
    """One session log written event by event, as the runner and a resume write it."""

    def __init__(self, agent: Path, session_id: str, injected: list[str], *, approval: bool = True) -> None:
        location = store.locate(agent)
        self.log = SessionLog.create(location.session_dir, session_id)
        self.agent, self.calls = agent, 0
        self.log.append(RunStart(session_id=session_id, agent_key=location.key,
                                 agent_path=str(location.agent_path), project_root=str(location.root),
                                 ih=current_ih(agent), model="anthropic:claude-test", prompt="Write a post",
                                 system=system_for(agent, injected), injected=injected, approval=approval, pid=os.getpid()))
        counting.count_session(self.log.path)  # the runner registers a session as it starts (start_run)

    def call(self, tool: str, error: str | None = None) -> "Run":
        self.calls += 1
        self.log.append(ToolCallEvent(call_id=f"c{self.calls}", name=tool, input={"path": "x"}))
        self.log.append(ToolResultEvent(call_id=f"c{self.calls}", name=tool, output="" if error else "ok",
                                        error=error, is_error=error is not None))
        return self

    def gate(self) -> "Run":
        self.log.append(ApprovalRequest(output="A post."))
        return self.end("awaiting_review")

    def decide(self, decision: str, comment: str | None = None) -> "Run":
        self.log.append(ApprovalDecision(decision=decision, comment=comment, pid=os.getpid()))
        if decision != "revise":
            self.end("completed" if decision == "approve" else "rejected")
        return self

    def round(self, number: int, injected: list[str]) -> "Run":
        self.log.append(RoundStart(round=number, ih=current_ih(self.agent), system=system_for(self.agent, injected),
                                   injected=injected))
        return self

    def end(self, status: str) -> "Run":
        self.log.append(RunEnd(status=status, output="A post."))
        counting.count_session(self.log.path)  # what the runner does at every run_end (runner.result_of)
        return self


