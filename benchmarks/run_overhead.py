"""What learning adds to every run: choosing and rendering the injected rules, and counting the injection.

    python benchmarks/run_overhead.py [--runs N]

For stores of 15 and 50 rules in force (the default cap and the top of the spec's 1-50 range, with
`max` set to match): the time to load agent file and store, choose what the run receives and render it
(`select_for_run`), and to record the injection (`record_injection`: lock, read, parse, count, render,
atomic write with fsync). Ratios compare each step with the cheapest honest baseline on the same
machine in the same run: a plain read of the store file, and a bare `atomic_write` of the same bytes.
"""

from __future__ import annotations

import argparse
import statistics

from _common import machine, make_rules, median_seconds, print_figures, project

from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.inject import record_injection, select_for_run
from agentuse.core.learning import State
from agentuse.core.store_format import StoreDoc, render

SIZES = (15, 50)


def measure(n: int, runs: int) -> dict[str, float]:
    with project(cap=n) as agent_path:
        agent = load_agent(agent_path)
        ih = agent_hash(agent)
        location = store.locate(agent_path)
        rules = [r.model_copy(update={"state": State.active, "why": None, "injected": 0})
                 for r in make_rules(n, ih=ih)]
        doc = StoreDoc(name=location.name, agent=location.key, learnings=rules)
        store.save(location, doc)
        text = render(doc)
        injection = select_for_run(agent, doc, ih)
        assert len(injection.ids) == n, "every rule should be in force for this benchmark"

        def load_and_choose():
            loaded_agent = load_agent(agent_path)
            return select_for_run(loaded_agent, store.load(location), agent_hash(loaded_agent))

        def bare_write():
            with store.lock_for(location.store_path):
                store.atomic_write(location.store_path, text)

        # Recording and the bare write alternate, so a burst of disk or CPU load on the shared machine
        # falls on both; each is fsync-bound, and fsync time is what varies most.
        record, bare = [], []
        for _ in range(runs):
            record.append(median_seconds(lambda: record_injection(location, injection.ids), runs=1, warmup=0))
            bare.append(median_seconds(bare_write, runs=1, warmup=0))
        after = store.load(location).learnings[0].injected
        assert after == 0, "each bare write puts back the text from before the recordings"
        return {
            "read_s": median_seconds(location.store_path.read_text, runs=runs),
            "choose_render_s": median_seconds(lambda: select_for_run(agent, doc, ih), runs=runs),
            "load_choose_render_s": median_seconds(load_and_choose, runs=runs),
            "record_s": statistics.median(record),
            "bare_write_s": statistics.median(bare),
            "section_chars": len(injection.text),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100)
    runs = parser.parse_args().runs
    figures: dict[str, object] = {**machine(), "runs": runs}
    for n in SIZES:
        r = measure(n, runs)
        figures[f"rules_{n}_section_chars"] = r["section_chars"]
        figures[f"rules_{n}_choose_render_ms"] = r["choose_render_s"] * 1000
        figures[f"rules_{n}_load_choose_render_ms"] = r["load_choose_render_s"] * 1000
        figures[f"rules_{n}_record_injection_ms"] = r["record_s"] * 1000
        figures[f"rules_{n}_load_choose_render_over_file_read"] = r["load_choose_render_s"] / r["read_s"]
        figures[f"rules_{n}_record_injection_over_bare_atomic_write"] = r["record_s"] / r["bare_write_s"]
    print_figures(figures)


if __name__ == "__main__":
    main()
