"""How parsing and rendering a learnings file grows with its size: 15, 1,000 and 10,000 rules.

    python benchmarks/store_scale.py [--runs N]

15 is the default cap; the spec tells of stores that reached 70 and 85 stuck corrections before the cap
was enforced, so 1,000 and 10,000 are far past anything a capped store should hold. For each size: the
file's bytes, median parse and render time, and the tracemalloc peak of each; then the growth ratios
per rule (1.0 means linear: ten times the rules cost ten times as much).
"""

from __future__ import annotations

import argparse
import tracemalloc

from _common import machine, make_rules, median_seconds, print_figures

from agentuse.core.store_format import StoreDoc, parse, render

SIZES = (15, 1_000, 10_000)


def _peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def measure(n: int, runs: int) -> dict[str, float]:
    doc = StoreDoc(name="blog-writer", agent="blog-writer.agentuse", learnings=make_rules(n, ih="9c4d2ba17e08"))
    text = render(doc)
    assert parse(text) == doc, "the benchmark store must round-trip"
    # Fewer repetitions for the big stores: one 10,000-rule parse already takes long enough to time well.
    reps = max(3, runs if n <= 1000 else runs // 5)
    return {
        "bytes": len(text.encode("utf-8")),
        "parse_s": median_seconds(lambda: parse(text), runs=reps),
        "render_s": median_seconds(lambda: render(doc), runs=reps),
        "parse_peak": _peak_bytes(lambda: parse(text)),
        "render_peak": _peak_bytes(lambda: render(doc)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    results = {n: measure(n, runs) for n in SIZES}
    figures: dict[str, object] = {**machine()}
    for n, r in results.items():
        figures[f"rules_{n}_file_kib"] = r["bytes"] / 1024
        figures[f"rules_{n}_parse_ms"] = r["parse_s"] * 1000
        figures[f"rules_{n}_render_ms"] = r["render_s"] * 1000
        figures[f"rules_{n}_parse_us_per_rule"] = r["parse_s"] / n * 1e6
        figures[f"rules_{n}_render_us_per_rule"] = r["render_s"] / n * 1e6
        figures[f"rules_{n}_parse_peak_kib"] = r["parse_peak"] / 1024
        figures[f"rules_{n}_render_peak_kib"] = r["render_peak"] / 1024
        figures[f"rules_{n}_parse_peak_over_file"] = r["parse_peak"] / r["bytes"]
    for small, big in zip(SIZES, SIZES[1:]):
        a, b, size = results[small], results[big], big / small
        # Per-rule growth: total time ratio divided by the size ratio (1.0 = linear).
        figures[f"parse_growth_per_rule_{small}_to_{big}"] = b["parse_s"] / a["parse_s"] / size
        figures[f"render_growth_per_rule_{small}_to_{big}"] = b["render_s"] / a["render_s"] / size
        figures[f"parse_peak_growth_per_rule_{small}_to_{big}"] = b["parse_peak"] / a["parse_peak"] / size
    print_figures(figures)


if __name__ == "__main__":
    main()
