"""Shared by the capture tests (a plain module, imported): a scripted `Helper`, agent files, session logs.

`ScriptedHelper` implements the Helper protocol from per-operation scripts: each entry is an answer
model, an exception to raise (a model fault), or a function from the request to either. Every request is
recorded, and `usage.calls` counts calls the way a real helper does (a fault counts: it was a call).
"""

from __future__ import annotations

import os
import shutil
from collections import defaultdict, deque
from datetime import date
from pathlib import Path
from typing import Any

from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.helper import protocol as p
from agentuse.core.helper.operations import Operation, OperationsMixin
from agentuse.core.learning import Channel, Learning, Source, State
from agentuse.core.store_format import StoreDoc
from agentuse.runtime.events import RunEnd, RunStart, ToolCallEvent, ToolResultEvent
from agentuse.runtime.session import SessionLog

TODAY = date(2026, 8, 19)


class ScriptedHelper(OperationsMixin):
    name = "scripted"

    def __init__(self, **scripts: list[Any]) -> None:
        self.usage = p.HelperUsage()
        self.scripts: dict[str, deque] = defaultdict(deque, {k: deque(v) for k, v in scripts.items()})
        self.requests: dict[str, list[Any]] = defaultdict(list)

    def script(self, operation: str, *entries: Any) -> "ScriptedHelper":
        self.scripts[operation].extend(entries)
        return self

    def calls(self, operation: str) -> int:
        return len(self.requests[operation])

    def _answer(self, operation: str, request: Any) -> Any:
        self.requests[operation].append(request)
        self.usage.add(10, 5)
        if not self.scripts[operation]:
            raise AssertionError(f"ScriptedHelper: no {operation} answer scripted (call {self.calls(operation)})")
        entry = self.scripts[operation].popleft()
        if callable(entry) and not isinstance(entry, type):
            entry = entry(request)
        if isinstance(entry, BaseException):
            raise entry
        return entry

    def _ask(self, operation: Operation, request: Any) -> Any:  # every protocol method (OperationsMixin)
        return self._answer(operation.name, request)


# ---------------------------------------------------------------- answers


def verdicts(request: p.VetRequest, *by_text: tuple[str, str, str], default: str = "pass") -> p.VetAnswer:
    """A vet answer for every candidate: (text fragment, verdict, detail) entries pick the verdict."""
    out = []
    for c in request.candidates:
        chosen = next(((v, d) for frag, v, d in by_text if frag in c.text), (default, ""))
        out.append(p.VetVerdict(id=c.id, verdict=chosen[0], detail=chosen[1]))
    return p.VetAnswer(verdicts=out)


def passing(request: p.VetRequest) -> p.VetAnswer:
    return verdicts(request)


def drafts(*titles: str) -> p.ExtractAnswer:
    return p.ExtractAnswer(candidates=[p.Draft(title=t, body=t) for t in titles])


def transient(op: str = "vet") -> p.TransientHelperError:
    return p.TransientHelperError(f"{op}: the model API answered 529: Overloaded", operation=op, status=529)


def permanent(op: str = "vet") -> p.InvalidAnswerError:
    return p.InvalidAnswerError(f"{op}: the model's answer does not validate", operation=op)


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
