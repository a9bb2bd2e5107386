"""The store under real processes: racing read-modify-writes, and writers killed mid-save."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

import pytest

from agentuse.core import store
from agentuse.core.learning import Category, Learning, Source
from agentuse.core.store_format import StoreDoc, parse, render

PROCESSES = 20
INCREMENTS = 50
KILLS = 30

# fork starts a worker in milliseconds; spawn would re-import pydantic in each of the 20 workers.
CONTEXT = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")


def _location(tmp_path: Path) -> store.AgentLocation:
    agent = tmp_path / "project" / "agents" / "counter.agentuse"
    agent.parent.mkdir(parents=True)
    agent.write_text("# Counter\n")
    return store.locate(agent)


def _increment(location: store.AgentLocation, start, count: int) -> None:
    start.wait(30)  # every worker starts together, so the increments really contend
    for _ in range(count):
        with store.transaction(location) as doc:
            doc.learnings[0].injected += 1


def test_racing_processes_lose_no_increment(tmp_path):
    location = _location(tmp_path)
    store.save(location, StoreDoc(name="counter", learnings=[
        Learning(id="c0c0c0c0", title="Count me", date="2026-01-27"),
        Learning(id="d1d1d1d1", title="Leave me", body="Untouched.", date="2026-01-27"),
    ]))
    start = CONTEXT.Event()
    workers = [CONTEXT.Process(target=_increment, args=(location, start, INCREMENTS)) for _ in range(PROCESSES)]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(120)
    assert [worker.exitcode for worker in workers] == [0] * PROCESSES
    doc = store.load(location)
    assert [rule.injected for rule in doc.learnings] == [PROCESSES * INCREMENTS, 0]
    assert doc.learnings[1].body == "Untouched."


def _big_doc(seed: int) -> StoreDoc:
    rng = random.Random(seed)
    words = "use the retry selector wait page before after upload file path confirm review source".split()
    rules = [
        Learning(id=f"{rng.getrandbits(32):08x}", category=rng.choice(list(Category)),
                 title=" ".join(rng.choices(words, k=6)), src=rng.choice(list(Source)),
                 body="\n".join(" ".join(rng.choices(words, k=14)) for _ in range(4)),
                 date="2026-01-27", confidence=0.9, injected=rng.randrange(100), why="a reason <!-- kept -->")
        for _ in range(400)
    ]
    return StoreDoc(name="counter", agent="agents/counter.agentuse", learnings=rules)


def _save_forever(location: store.AgentLocation, versions: list[StoreDoc], written) -> None:
    """The real path: lock, check the file on disk still parses, render, write atomically."""
    for turn in range(10**9):
        store.save(location, versions[turn % 2])
        written.set()


def _write_forever(location: store.AgentLocation, versions: list[StoreDoc], written) -> None:
    """Only the write itself, so that nearly every kill lands inside atomic_write."""
    texts = [render(version) for version in versions]
    for turn in range(10**9):
        with store.lock_for(location.store_path):
            store.atomic_write(location.store_path, texts[turn % 2])
        written.set()


@pytest.mark.parametrize("writer", [_save_forever, _write_forever], ids=["save", "atomic_write"])
def test_killed_writer_leaves_the_old_or_the_new_file(tmp_path, writer):
    location = _location(tmp_path)
    versions = [_big_doc(1), _big_doc(2)]
    texts = [render(version) for version in versions]
    assert len(texts[0]) > 100_000  # large enough that writing it is not instantaneous
    store.save(location, versions[1])
    rng = random.Random(2026)
    seen, interrupted = set(), 0
    for _ in range(KILLS):
        written = CONTEXT.Event()
        child = CONTEXT.Process(target=writer, args=(location, versions, written))
        child.start()
        try:
            assert written.wait(30)
            time.sleep(rng.uniform(0, 0.05))  # a random moment a few saves later
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.join(30)
        assert child.exitcode == -signal.SIGKILL
        text = location.store_path.read_text(encoding="utf-8")
        assert text in texts
        assert parse(text) == versions[texts.index(text)]
        seen.add(texts.index(text))
        temps = [path for path in location.store_path.parent.iterdir() if path.name.endswith(".tmp")]
        interrupted += bool(temps)
        for temp in temps:
            os.utime(temp, (0, 0))  # age them, so the next write sweeps them
        with store.transaction(location):  # the dead writer's lock died with it
            pass
    current = texts.index(location.store_path.read_text(encoding="utf-8"))
    store.save(location, versions[1 - current])  # a real write, which sweeps what the kills left
    assert not [path for path in location.store_path.parent.iterdir() if path.name.endswith(".tmp")]
    assert seen == {0, 1}
    if writer is _write_forever:
        # Proof the kills land mid-write: roughly half do here, so none at all would mean a broken test.
        assert interrupted > 0


def test_temp_files_from_killed_writers_are_swept_on_a_later_save(tmp_path):
    location = _location(tmp_path)
    doc = _big_doc(3)
    leftover = location.store_path.parent / f".{location.store_path.name}.0badf00d.tmp"
    location.store_path.parent.mkdir(parents=True)
    leftover.write_text(render(doc)[:5000])  # what a writer killed mid-write leaves
    os.utime(leftover, (0, 0))
    store.save(location, doc)
    assert sorted(path.name for path in location.store_path.parent.iterdir()) == [
        "counter.learnings.md", "counter.learnings.md.lock"]


@pytest.mark.skipif(CONTEXT.get_start_method() != "fork", reason="threads + fork only matter with fork")
def test_a_lock_held_in_the_parent_is_not_inherited_by_a_forked_child(tmp_path):
    location = _location(tmp_path)
    store.save(location, StoreDoc(name="counter", learnings=[Learning(id="c0c0c0c0", title="T", date="2026-01-27")]))
    start = CONTEXT.Event()
    with store.lock_for(location.store_path):
        child = CONTEXT.Process(target=_increment, args=(location, start, 1))
        child.start()
        start.set()
        child.join(0.3)
        assert child.exitcode is None  # waiting for the parent's lock, not sharing it
    child.join(30)
    assert child.exitcode == 0
    assert store.load(location).learnings[0].injected == 1
