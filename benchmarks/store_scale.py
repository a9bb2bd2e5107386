"""How reading and writing a store grows with its size, and (with --baseline) how it compares with an older
commit on the same stores: 15, 1,000, 10,000 and 100,000 rules.

    python benchmarks/store_scale.py [--runs N] [--baseline 4c0d947]

15 is the default cap; the spec tells of stores that reached 70 and 85 stuck corrections before the cap
was enforced, so the larger sizes are far past anything a capped store should hold. For each size, one
store is generated and written once; each implementation then times, on that same file:
- parse: `parse(text)`; render: `render(doc)` of the parsed doc; each also as CPU time (`_cpu`), which
  other work on a shared machine sways less than wall time;
- load_choose_render: what a run does before its first model call (load the agent file and the store,
  choose the rules the run receives, render its section);
- record_injection: `record_injection` (lock, read, count, write) as a run makes it, just after it read
  the store (load_choose_render above: the count then rewrites only the counted lines), against a bare
  locked atomic write of the same bytes measured alternately with it; record_injection_cold: the same in
  a process that has not read those bytes (lock, read, parse, count, render, write);
- parse peak: tracemalloc's peak during a parse, over the file's size.

Each implementation runs in its own process (a worker of this script), whose `agentuse.core` is the tree
under test. --baseline REV exports REV's `core/` with `git archive` into a temporary folder and points the
second worker's `agentuse.core` at it. No second virtualenv: `core` imports only pydantic, filelock,
pyyaml and gitpython, which the same pyproject pins, so a second venv would hold the same packages; one
venv keeps the comparison about the code. Each worker asserts the module it imported comes from its tree.
The two workers take turns operation by operation, so noise on the shared machine falls on both. Printed
ratios are new / old (below 1 is faster); growth is the 100,000-rule figure over the 10,000-rule one
(10 is linear).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tracemalloc
import types
from io import BytesIO
from pathlib import Path


def _point_agentuse_at(package: Path) -> None:
    """Make `agentuse` the namespace under `package`, before anything imports it (the install otherwise)."""
    namespace = types.ModuleType("agentuse")
    namespace.__path__ = [str(package)]
    sys.modules["agentuse"] = namespace


if __name__ == "__main__" and "--worker" in sys.argv:  # _common below imports agentuse
    _point_agentuse_at(Path(sys.argv[sys.argv.index("--worker") + 1]))

from _common import machine, print_figures  # noqa: E402

SIZES = (15, 1_000, 10_000, 100_000)
REPO = Path(__file__).resolve().parent.parent
OPS = ("parse", "render", "load_choose_render", "record_injection", "record_injection_cold", "bare_write")
CPU_OPS = ("parse_cpu", "render_cpu")  # the same calls' CPU time: steadier than wall time on a busy machine


def _reps(n: int, runs: int) -> int:
    # The big stores take long enough per call to time well in a few runs.
    return max(2, runs if n <= 1_000 else runs // 4 if n <= 10_000 else runs // 10)


# ---------------------------------------------------------------- the parent


def _make_store(n: int, folder: Path) -> Path:
    from _common import make_rules

    from agentuse.core.store_format import StoreDoc, render

    path = folder / f"store-{n}.learnings.md"
    doc = StoreDoc(name="blog-writer", agent="blog-writer.agentuse", learnings=make_rules(n, ih="9c4d2ba17e08"))
    path.write_text(render(doc), encoding="utf-8")
    return path


def _export(rev: str, folder: Path) -> Path:
    """REV's core/ under folder/agentuse/core (git archive: nothing registered in the repository)."""
    archive = subprocess.run(["git", "archive", "--format=tar", rev, "core"], cwd=REPO, check=True,
                             capture_output=True).stdout
    root = folder / "agentuse"
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(root, filter="data")
    return root


class _Worker:
    def __init__(self, name: str, package: Path):
        self.name = name
        self.process = subprocess.Popen([sys.executable, __file__, "--worker", str(package)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, cwd=REPO)

    def ask(self, **command) -> dict:
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        if not reply:
            raise SystemExit(f"the {self.name} worker stopped (see its traceback above)")
        return json.loads(reply)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--baseline", metavar="REV", help="compare with this commit (e.g. 4c0d947)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return _serve(Path(args.worker))
    sizes = [int(size) for size in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="agentuse-store-scale-") as tmp:
        tmp = Path(tmp)
        (tmp / "new").mkdir()
        os.symlink(REPO / "core", tmp / "new" / "core")
        workers = [_Worker("new", tmp / "new")]
        if args.baseline:
            workers.append(_Worker("old", _export(args.baseline, tmp / "old")))
        try:
            figures = _run(workers, sizes, args.runs, tmp)
        finally:
            for worker in workers:
                worker.close()
    print_figures({**machine(), **({"baseline": args.baseline} if args.baseline else {}), **figures})


def _run(workers: list[_Worker], sizes: list[int], runs: int, tmp: Path) -> dict[str, object]:
    figures: dict[str, object] = {}
    medians: dict[tuple[str, int, str], float] = {}
    for n in sizes:
        path = _make_store(n, tmp)
        text_hash = hashlib.sha256(path.read_bytes()).hexdigest()
        for worker in workers:
            ready = worker.ask(op="open", path=str(path))
            assert ready["render_hash"] == text_hash, f"{worker.name}: render(parse(text)) is not the same bytes"
        samples: dict[tuple[str, str], list[float]] = {}
        for rep in range(_reps(n, runs)):
            for op in ("parse", "render", "load_choose_render", "record_injection", "record_injection_cold"):
                # Take turns, and swap who goes first each round.
                for worker in workers if rep % 2 == 0 else workers[::-1]:
                    for name, seconds in worker.ask(op=op).items():
                        samples.setdefault((worker.name, name), []).append(seconds)
        figures[f"rules_{n}_file_kib"] = path.stat().st_size / 1024
        for worker in workers:
            peak = worker.ask(op="peak")["peak"]
            figures[f"rules_{n}_{worker.name}_parse_peak_over_file"] = peak / path.stat().st_size
            for op in OPS + CPU_OPS:
                medians[(worker.name, n, op)] = statistics.median(samples[(worker.name, op)])
            for op in ("record_injection", "record_injection_cold"):
                figures[f"rules_{n}_{worker.name}_{op}_over_bare_write"] = (
                    medians[(worker.name, n, op)] / medians[(worker.name, n, "bare_write")])
        for op in OPS[:-1] + CPU_OPS:
            for worker in workers:
                figures[f"rules_{n}_{worker.name}_{op}_ms"] = medians[(worker.name, n, op)] * 1000
            if len(workers) == 2:
                figures[f"rules_{n}_{op}_new_over_old"] = medians[("new", n, op)] / medians[("old", n, op)]
        path.unlink()
    if 10_000 in sizes and 100_000 in sizes:
        for op in OPS + CPU_OPS:
            figures[f"growth_10000_to_100000_new_{op}"] = medians[("new", 100_000, op)] / medians[("new", 10_000, op)]
    return figures


# ---------------------------------------------------------------- a worker: one implementation


def _serve(package: Path) -> None:
    """Answer the parent's commands (one JSON object a line) with the `agentuse.core` under `package`."""
    from agentuse.core import store, store_format

    assert Path(store_format.__file__).resolve().is_relative_to((package / "core").resolve()), store_format.__file__
    with tempfile.TemporaryDirectory(prefix="agentuse-store-worker-") as tmp:
        os.environ["AGENTUSE_DATA_DIR"] = str(Path(tmp) / "state")
        bench = _Bench(Path(tmp), store, store_format)
        for line in sys.stdin:
            command = json.loads(line)
            reply = getattr(bench, command.pop("op"))(**command)
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def _seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _both(fn) -> tuple[float, float]:
    """Wall time and this process's CPU time of one call."""
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - start, time.process_time() - cpu


class _Bench:
    def __init__(self, tmp: Path, store, store_format):
        from _common import agent_text

        from agentuse.core.agent_file import load_agent
        from agentuse.core.contract import agent_hash
        from agentuse.core.inject import record_injection, select_for_run

        self.store, self.format = store, store_format
        self.load_agent, self.agent_hash = load_agent, agent_hash
        self._record, self._select = record_injection, select_for_run
        self.agent_path = tmp / "proj" / "blog-writer.agentuse"
        self.agent_path.parent.mkdir()
        self.agent_path.write_text(agent_text(), encoding="utf-8")
        self.location = store.locate(self.agent_path)

    def open(self, path: str) -> dict:
        self.text = Path(path).read_text(encoding="utf-8")
        self.doc = self.format.parse(self.text)
        self.store.save(self.location, self.doc)
        assert self.location.store_path.read_text(encoding="utf-8") == self.text
        agent = self.load_agent(self.agent_path)
        # The benchmark rules carry ih 9c4d2ba17e08, stale against this agent: choose them as current.
        self.ids = self._select(agent, self.doc, "9c4d2ba17e08").ids
        return {"render_hash": hashlib.sha256(self.format.render(self.doc).encode("utf-8")).hexdigest()}

    def parse(self) -> dict:
        wall, cpu = _both(lambda: self.format.parse(self.text))
        return {"parse": wall, "parse_cpu": cpu}

    def render(self) -> dict:
        wall, cpu = _both(lambda: self.format.render(self.doc))
        return {"render": wall, "render_cpu": cpu}

    def load_choose_render(self) -> dict:
        def run():
            agent = self.load_agent(self.agent_path)
            self.agent_hash(agent)
            return self._select(agent, self.store.load(self.location), "9c4d2ba17e08")

        return {"load_choose_render": _seconds(run)}

    def record_injection(self) -> dict:
        def bare_write():
            with self.store.lock_for(self.location.store_path):
                self.store.atomic_write(self.location.store_path, self.text)

        record = _seconds(lambda: self._record(self.location, self.ids))
        bare = _seconds(bare_write)  # also puts back the text from before the recording
        return {"record_injection": record, "bare_write": bare}

    def record_injection_cold(self) -> dict:
        getattr(self.store, "_VERBATIM", {}).clear()  # as if this process had not read the store
        record = _seconds(lambda: self._record(self.location, self.ids))
        with self.store.lock_for(self.location.store_path):
            self.store.atomic_write(self.location.store_path, self.text)
        return {"record_injection_cold": record}

    def peak(self) -> dict:
        tracemalloc.start()
        try:
            self.format.parse(self.text)
            return {"peak": tracemalloc.get_traced_memory()[1]}
        finally:
            tracemalloc.stop()


if __name__ == "__main__":
    main()
