"""20 processes x 50 operations on one agent's store: injections, approvals, captures and one tidy-up.

Every worker logs exactly what it did, so the counters the store must end with are known: nothing may be
lost (each rule's `injected` and `ok` equal the seed's plus every worker's), no reader may ever see a torn
file, and every capture and the tidy-up must be in the result.
"""

from __future__ import annotations

import threading
from collections import Counter

from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.learned_block import read_block
from agentuse.core.learning import Channel, State
from agentuse.core.store_format import parse

from .stores import agent_text

WORKERS = 20
OPS = 50
CAP = 50  # room for every worker's capture, so the cap itself retires nothing and every count stays checkable


def _watch(project, stop: threading.Event, seen: Counter) -> None:
    """A reader racing the writers: every read of either file must parse."""
    while not stop.is_set():
        try:
            parse(project.location.store_path.read_text(encoding="utf-8"))
            read_block(load_agent(project.agent).text)
            seen["reads"] += 1
        except Exception as error:  # noqa: BLE001 - any failure is the finding
            seen[f"{type(error).__name__}: {error}"] += 1


def test_twenty_processes_lose_no_update_and_tear_no_file(fork_server, project):
    project.agent.write_text(agent_text(CAP), encoding="utf-8")
    seeded = project.seed(20, seed=5)
    initial = {r.id: r for r in seeded.learnings}
    config = {"agent": str(project.agent), "ids": sorted(initial), "ops": OPS, "seed": 11, "workers": WORKERS,
              "tidy_worker": 0, "tidy_at": 7}
    stop, seen = threading.Event(), Counter()
    watcher = threading.Thread(target=_watch, args=(project, stop, seen))
    watcher.start()
    try:
        answer = fork_server.ask({"cmd": "load", "config": config})
    finally:
        stop.set()
        watcher.join()
    workers = answer["workers"]
    assert [w.get("error") for w in workers] == [None] * WORKERS, workers
    assert [w["exit"] for w in workers] == [0] * WORKERS
    assert set(seen) == {"reads"}, seen  # no torn or unreadable file, ever
    assert seen["reads"] > 10

    tidy = workers[0]["tidy"]
    assert tidy["written"], tidy  # the tidy-up committed in the middle of the load, without conflict
    final = {r.id: r for r in store.load(project.location).learnings}
    archived = {r.id for r in store.load_archive(project.location).learnings}
    injected, approved = Counter(), Counter()
    for worker in workers:
        injected.update(worker["injected"])
        approved.update(worker["approved"])
    for rule_id, rule in initial.items():
        assert rule_id in final or rule_id in archived, f"{rule_id} vanished"
        if rule_id in final:
            assert final[rule_id].injected == rule.injected + injected[rule_id], rule_id
            assert final[rule_id].ok == rule.ok + approved[rule_id], rule_id
    graduated = [r for r in final.values() if r.state is State.graduated and not initial[r.id].state is State.graduated]
    assert graduated, "the tidy-up had proven rules to make permanent"
    assert len(read_block(project.agent.read_text())) >= len(graduated)
    # Each worker's captures share one failure mode: one record per worker, the latest recovery.
    tools = Counter(r.tool for r in final.values() if r.ch is Channel.tool_errors)
    capturing = {tool for worker in workers for tool in worker["captured"]}
    assert capturing and set(tools) == capturing and set(tools.values()) == {1}
    assert sum(len(w["captured"]) for w in workers) > WORKERS  # real volume, not one capture each
