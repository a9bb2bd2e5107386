"""The spec's 58-learning tidy-up against a model with a fixed latency: how much do the parallel groups buy?

    python benchmarks/tidy.py [--latency SECONDS]

The store is examples/seeds/overgrown.learnings.md and the model answers are the scripted ones of
tests/tidy_scenario.py (merge near-duplicates at most five per move, retire superseded rules, sharpen
the repeated one, quarantine the two stale ones), each held for `--latency` seconds. The flow runs
inline (no Prefect API), as a CLI tidy-up does. Tokens are counted on what the Anthropic helper would
send and receive for each call (its prompt file plus the rendered request; the answer as JSON) with
anthropic-tokenizer, or len/4 when it is not installed.

Figures: passes, model calls per pass, total tokens, wall time, wall / (calls x latency) (the parallel
speed-up: lower is better, 1.0 would be fully sequential) and wall / (sequential rounds x latency) (the
floor: a round is one dependent step, e.g. pass 1's re-vet, its plans, its rewrites, its audits).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from datetime import date
from pathlib import Path

from _common import machine, print_figures

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the scripted scenario lives there
from tidy_scenario import Scenario, install  # noqa: E402

from agentuse.core import store  # noqa: E402
from agentuse.core.describe import estimate_tokens  # noqa: E402
from agentuse.core.helper.render import prompt, render  # noqa: E402

try:
    from anthropic_tokenizer import count_tokens as _count

    TOKENIZER = "anthropic-tokenizer"
except ImportError:
    _count, TOKENIZER = None, "len/4 (anthropic-tokenizer not installed)"

OPERATIONS = ("vet", "plan_groups", "rewrite_group", "audit", "rewrite_block")


def count(text: str) -> int:
    return _count(text) if _count else estimate_tokens(text)


class TimedHelper:
    """The scripted answers, each after `latency` seconds, with calls, tokens and the pass they ran in."""

    def __init__(self, inner, latency: float) -> None:
        self.inner, self.latency = inner, latency
        self.name, self.usage = "timed", inner.usage
        self.pass_no = 0
        self.calls: list[tuple[int, str]] = []
        self.input_tokens = self.output_tokens = 0
        self._lock = threading.Lock()

    def on_progress(self, event) -> None:
        if event.kind == "reading":
            self.pass_no = event.pass_no

    def __getattr__(self, operation: str):
        answer = getattr(self.inner, operation)

        def timed(request):
            time.sleep(self.latency)
            result = answer(request)
            sent = count(prompt(operation)) + count(render(operation, request))
            with self._lock:
                self.calls.append((self.pass_no, operation))
                self.input_tokens += sent
                self.output_tokens += count(result.model_dump_json())
            return result

        return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.5)
    latency = parser.parse_args().latency
    from agentuse.flows.tidy import run_tidy  # imports prefect: after argument parsing

    with tempfile.TemporaryDirectory(prefix="agentuse-bench-") as tmp:
        import os

        os.environ["AGENTUSE_DATA_DIR"] = str(Path(tmp) / "state")
        os.environ.pop("PREFECT_API_URL", None)
        (Path(tmp) / "proj").mkdir()
        agent = install(Path(tmp) / "proj", store.locate)
        helper = TimedHelper(Scenario().helper(), latency)
        start = time.perf_counter()
        result = run_tidy(agent, helper=helper, progress=helper.on_progress, today=date(2026, 11, 30), seed=7)
        wall = time.perf_counter() - start
        shutil.rmtree(tmp, ignore_errors=True)

    calls = len(helper.calls)
    rounds = len(dict.fromkeys(helper.calls))  # distinct (pass, operation): each is one dependent step
    figures: dict[str, object] = {**machine(), "tokenizer": TOKENIZER, "latency_s": latency,
                                  "summary": result.summary, "passes": len(result.passes)}
    for info in result.passes:
        in_pass = [op for p, op in helper.calls if p == info.pass_no]
        figures[f"pass_{info.pass_no}_model_calls"] = len(in_pass)
        figures[f"pass_{info.pass_no}_by_operation"] = ",".join(
            f"{op}:{in_pass.count(op)}" for op in OPERATIONS if op in in_pass)
    figures.update({
        "model_calls": calls,
        "sequential_rounds": rounds,
        "input_tokens": helper.input_tokens,
        "output_tokens": helper.output_tokens,
        "total_tokens": helper.input_tokens + helper.output_tokens,
        "wall_s": wall,
        "wall_over_calls_x_latency": wall / (calls * latency),
        "wall_over_rounds_x_latency": wall / (rounds * latency),
    })
    print_figures(figures)


if __name__ == "__main__":
    main()
