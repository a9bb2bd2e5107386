"""Shared by the capture tests (a plain module, imported): agent files, stores and session logs. The scripted
helper and its ready-made answers are tests/fakes/scripted_helper.py."""

from __future__ import annotations

import os
import shutil
from datetime import date
from pathlib import Path
from typing import Any

from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.learning import Channel, Learning, Source, State
from agentuse.core.store_format import StoreDoc
from agentuse.runtime.events import RunEnd, RunStart, ToolCallEvent, ToolResultEvent
from agentuse.runtime.session import SessionLog

TODAY = date(2026, 8, 19)


# ---------------------------------------------------------------- agents, stores, sessions

AGENT = """---
model: anthropic:claude-test
{learning}
---

# Blog Writer

Write short productivity blog posts and save each one under `posts/`.

## Guidelines
- Start with a relatable hook
- Never publish without an approval gate
"""

CUSTOM = """learning:
  capture:
    addons: [tool-errors]
    custom: Only capture rules about file paths and saving.
  max: {max}"""


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXAMPLE_SESSION = EXAMPLES / "sessions" / "blog-writer-tool-error.jsonl"  # replays with the example agent


def copy_example(root: Path) -> Path:
    """The bundled blog-writer agent in a fresh project folder (runs write files under it)."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "blog-writer.agentuse", root / "blog-writer.agentuse")
    return root / "blog-writer.agentuse"


def make_agent(root: Path, learning: str = CUSTOM.format(max=15), name: str = "blog.agentuse") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / name
    path.write_text(AGENT.format(learning=learning))
    return path


def current_ih(agent: Path) -> str:
    return agent_hash(load_agent(agent))


def rule(rule_id: str, title: str, *, src: Source = Source.auto, ch: Channel | None = Channel.custom,
         date_: str = "2026-08-01", ih: str | None = None, **kw: Any) -> Learning:
    return Learning(id=rule_id, title=title, body=title, date=date_, src=src, ch=ch, ih=ih, **kw)


def seed(agent: Path, learnings: list[Learning]) -> store.AgentLocation:
    location = store.locate(agent)
    store.save(location, StoreDoc(name=location.name, agent=location.key, learnings=learnings))
    return location


def stored(agent: Path) -> list[Learning]:
    return store.load(store.locate(agent)).learnings


def archived(agent: Path) -> list[Learning]:
    return store.load_archive(store.locate(agent)).learnings


def active(agent: Path) -> list[Learning]:
    return [r for r in stored(agent) if r.state is State.active]


UPLOAD_FAIL = [("upload", {"path": "./shot.png"}, "files.length remained 0"),
               ("upload", {"path": "/Users/me/shot.png"}, None)]


def make_session(agent: Path, calls: list[tuple[str, Any, str | None]] = (), *, prompt: str = "Write a post",
                 output: str = "A post.", session_id: str = "01K8ZCAPTURE0000000000000A") -> Path:
    """A finished run's log: each call is (tool, input, error or None for success)."""
    location = store.locate(agent)
    log = SessionLog.create(location.session_dir, session_id)
    log.append(RunStart(session_id=session_id, agent_key=location.key, agent_path=str(location.agent_path),
                        project_root=str(location.root), ih=current_ih(agent), model="anthropic:claude-test",
                        prompt=prompt, system="x", pid=os.getpid()))
    for n, (tool, tool_input, error) in enumerate(calls):
        log.append(ToolCallEvent(call_id=f"c{n}", name=tool, input=tool_input))
        log.append(ToolResultEvent(call_id=f"c{n}", name=tool, output="" if error else "ok", error=error,
                                   is_error=error is not None))
    log.append(RunEnd(status="completed", output=output))
    return log.path
