"""What counting a run into the effectiveness index costs, and that it does not grow with the sessions.

    python benchmarks/effectiveness.py [--runs 15] [--sizes 100,1000,10000]

For an agent with 15 rules and 100, 1,000 and 10,000 recorded sessions (real session logs in the project,
the index rebuilt from them): one more gated run's index updates, as the runner and a resume make them
(registered at its start, recounted when it stops at the gate, folded in when it is approved), timed
together. The sizes take turns run by run, so the shared machine's noise falls on all of them alike; the
figure that matters is the ratio of the update at each size to the update at the smallest, about 1 when
the update is O(1) per run. `--rebuild` over all logs (O(sessions)) is timed once per size, for scale.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from _common import agent_text, machine, make_rules, print_figures

from agentuse.core import effectiveness, store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.inject import render_section
from agentuse.core.learning import State
from agentuse.core.store_format import StoreDoc
from agentuse.runtime import effectiveness as counting
from agentuse.runtime.events import (
    ApprovalDecision,
    ApprovalRequest,
    RunEnd,
    RunStart,
    ToolCallEvent,
    ToolResultEvent,
)
from agentuse.runtime.session import SessionLog

RULES = 15
COMMENTS = ["Shorter intro", "Link the sources before publishing", "Fine", None, None, None]


class Agent:
    """One project of its own: agent file, 15 rules in force, `sessions` recorded session logs."""

    def __init__(self, root: Path, sessions: int) -> None:
        self.env = {"AGENTUSE_DATA_DIR": str(root / "state")}
        self.path = root / "proj" / "blog-writer.agentuse"
        self.path.parent.mkdir(parents=True)
        self.path.write_text(agent_text(), encoding="utf-8")
        self.location = store.locate(self.path, env=self.env)
        ih = agent_hash(load_agent(self.path))
        rules = [r.model_copy(update={"state": State.active, "why": None, "ih": ih}) for r in make_rules(RULES, ih=ih)]
        store.save(self.location, StoreDoc(name=self.location.name, agent=self.location.key, learnings=rules))
        self.rules, self.made = rules, 0
        rng = random.Random(sessions)
        self.location.session_dir.mkdir(parents=True, exist_ok=True)
        for _ in range(sessions):  # written plainly (no fsync per event): only their count matters here
            events = self._events(rng, self._next_id())
            (self.location.session_dir / f"{events[0].session_id}.jsonl").write_text(
                "".join(e.model_dump_json() + "\n" for e in events), encoding="utf-8")

    def _next_id(self) -> str:
        self.made += 1
        return f"01K8ZEFF{self.made:018d}"

    def _start(self, rng: random.Random, session_id: str) -> RunStart:
        injected = [r for r in self.rules if rng.random() < 0.8]
        return RunStart(session_id=session_id, agent_key=self.location.key, agent_path=str(self.path),
                        project_root=str(self.location.root), ih="x", model="anthropic:claude-test",
                        prompt="Write a post", system="# Blog\n\n" + render_section(injected),
                        injected=[r.id for r in injected], approval=True, pid=os.getpid(), at="2026-01-01T00:00:00Z")

    def _events(self, rng: random.Random, session_id: str) -> list:
        failed = rng.random() < 0.3
        comment = rng.choice(COMMENTS)
        return [self._start(rng, session_id),
                ToolCallEvent(call_id="c1", name="browser.tool9", input={"path": "x"}),
                ToolResultEvent(call_id="c1", name="browser.tool9", output="", is_error=failed,
                                error="files.length remained 0" if failed else None),
                ApprovalRequest(output="A post."), RunEnd(status="awaiting_review", output="A post."),
                ApprovalDecision(decision="reject" if comment == "Fine" else "approve", comment=comment, pid=1),
                RunEnd(status="completed", output="A post.")]

    def one_run(self, rng: random.Random) -> float:
        """A new gated run, approved: the seconds its three index updates took (the log writes not counted)."""
        events = self._events(rng, self._next_id())
        log = SessionLog.create(self.location.session_dir, events[0].session_id)
        spent = 0.0
        for stop, event in enumerate(events):
            log.append(event)
            if stop in (0, 4, 6):  # run_start, stopped at the gate, approved: where the runner counts
                began = time.perf_counter()
                counting.count_session(log.path)
                spent += time.perf_counter() - began
        return spent

    def index_path(self) -> Path:
        return effectiveness.index_path(self.location.project_dir, self.location.key)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--sizes", default="100,1000,10000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    figures: dict[str, object] = dict(machine())
    with tempfile.TemporaryDirectory(prefix="agentuse-bench-") as tmp:
        agents = {n: Agent(Path(tmp) / f"n{n}", n) for n in sizes}
        rebuild_s = {}
        for n, agent in agents.items():
            began = time.perf_counter()
            counting.rebuild(agent.location.project_dir, agent.location.key)
            rebuild_s[n] = time.perf_counter() - began
        rng = random.Random(1)
        for agent in agents.values():
            agent.one_run(rng)  # warm-up: imports, first analyses
        samples: dict[int, list[float]] = {n: [] for n in sizes}
        for _ in range(args.runs):
            for n, agent in agents.items():  # the sizes take turns
                samples[n].append(agent.one_run(rng))
        update = {n: statistics.median(s) for n, s in samples.items()}
        for n, agent in agents.items():
            counted = effectiveness.load(agent.index_path(), agent.location.key)
            assert effectiveness.runs_counted(counted) == n + args.runs + 1, "every run should be counted once"
            figures[f"update_ms_at_{n}"] = update[n] * 1000
            figures[f"index_bytes_at_{n}"] = agent.index_path().stat().st_size
            figures[f"rebuild_over_update_at_{n}"] = rebuild_s[n] / update[n]
        smallest = sizes[0]
        for n in sizes[1:]:
            figures[f"update_{n}_over_{smallest}"] = update[n] / update[smallest]
    print_figures(figures)


if __name__ == "__main__":
    main()
