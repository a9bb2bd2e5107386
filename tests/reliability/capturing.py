"""A real post-run capture for the load and crash tests: a finished run whose trace holds a failed tool call
and its corrected retry, captured through the capture flow's tool-errors channel (verified in code, so
no model call is needed; a helper that is asked anything fails the test)."""

from __future__ import annotations

import os
from pathlib import Path

from fakes.scripted_helper import ScriptedHelper

from agentuse.core import store
from agentuse.core.contract import agent_hash
from agentuse.core.agent_file import load_agent
from agentuse.flows.capture import run_capture
from agentuse.runtime.events import RunEnd, RunStart, ToolCallEvent, ToolResultEvent
from agentuse.core.session_ids import new_session_id
from agentuse.runtime.session import SessionLog


def record_run(agent: Path, *, tool: str, failure: str, bad: dict, good: dict) -> str:
    """Log a finished run: `tool` fails on `bad` input with `failure`, then succeeds on `good`."""
    location = store.locate(agent)
    session_id = new_session_id()
    log = SessionLog.create(location.session_dir, session_id)
    log.append(RunStart(session_id=session_id, agent_key=location.key, agent_path=str(location.agent_path),
                        project_root=str(location.root), ih=agent_hash(load_agent(agent)),
                        model="anthropic:claude-test", prompt="Write a post", system="x", pid=os.getpid()))
    for n, (tool_input, error) in enumerate([(bad, failure), (good, None)]):
        log.append(ToolCallEvent(call_id=f"c{n}", name=tool, input=tool_input))
        log.append(ToolResultEvent(call_id=f"c{n}", name=tool, output="" if error else "ok", error=error,
                                   is_error=error is not None))
    log.append(RunEnd(status="completed", output="A post."))
    return session_id


def capture(agent: Path, session_id: str):
    return run_capture(agent=str(agent), session=session_id, helper=ScriptedHelper())


def capture_once(agent: Path, config: dict) -> dict:
    """The crash test's capture: the run was logged before the trial; only the capture is interrupted."""
    report = capture(agent, config["session"])
    return {"extracted": report.extracted, "line": report.line}
