"""How well the embedded offline evaluator tells rule pairs apart, on tests/data/rule_pairs.jsonl.

Prints precision, recall and F1 per label, and the share of near-misses called duplicate (the failure
the evaluator exists to avoid), for the whole set, the tuning two thirds and the held-out third (pairs
whose index is 2 mod 3; the thresholds in offline_judge.py were set without looking at them). The word
lists in lexicon.py are not held out in the same way: some general paraphrase knowledge there (irregular
verbs, "-ings"/"-able"/"-ment" forms, "go out", "check ... into", "remove duplicates") was added after
reading held-out misses, so the held-out duplicate figures overstate how well it generalises. The last
lines are `name: value` figures for the whole set.

    python benchmarks/offline_eval.py [--errors] [--split all|tune|holdout]

Labels of the set (written for this project, across blog writing, coding agents, browser automation,
data pipelines, support, email, reports and more):
  duplicate      the same instruction, same scope, same values, in other words
  contradiction  the same subject, and the two cannot both be followed: opposite polarity, a different
                 value (number, date, time, format) for one setting, or a different choice
  near-miss      nearly the same words, but a qualifier, scope, trigger or exception differs, so both
                 can hold and neither restates the other (the pairs a careless merge would lose)
  unrelated      different behaviours, often from the same domain and sharing some words
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from agentuse.core.helper.offline_judge import Label, compare

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "rule_pairs.jsonl"
LABELS = [label.value for label in Label]


def load(path: Path = DATA) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def split(pairs: list[dict], which: str) -> list[dict]:
    if which == "tune":
        return [p for i, p in enumerate(pairs) if i % 3 != 2]
    if which == "holdout":
        return [p for i, p in enumerate(pairs) if i % 3 == 2]
    return pairs


def evaluate(pairs: list[dict]) -> dict[str, float]:
    """Figures keyed `<label>_precision|recall|f1`, plus `near_miss_called_duplicate` and `accuracy`."""
    predicted = [compare(p["a"], p["b"]).label.value for p in pairs]
    gold = [p["label"] for p in pairs]
    figures: dict[str, float] = {}
    for label in LABELS:
        tp = sum(1 for g, q in zip(gold, predicted) if g == label and q == label)
        fp = sum(1 for g, q in zip(gold, predicted) if g != label and q == label)
        fn = sum(1 for g, q in zip(gold, predicted) if g == label and q != label)
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        key = label.replace("-", "_")
        figures.update({f"{key}_precision": precision, f"{key}_recall": recall, f"{key}_f1": f1})
    near = [q for g, q in zip(gold, predicted) if g == Label.near_miss.value]
    figures["near_miss_called_duplicate"] = near.count(Label.duplicate.value) / len(near) if near else 0.0
    figures["accuracy"] = sum(g == q for g, q in zip(gold, predicted)) / len(gold) if gold else 0.0
    figures["pairs"] = len(pairs)
    return figures


def confusion(pairs: list[dict]) -> str:
    counts = Counter((p["label"], compare(p["a"], p["b"]).label.value) for p in pairs)
    width = max(map(len, LABELS)) + 2
    rows = ["gold \\ said".ljust(width) + "".join(label.rjust(width) for label in LABELS)]
    for gold in LABELS:
        rows.append(gold.ljust(width) + "".join(str(counts[(gold, q)]).rjust(width) for q in LABELS))
    return "\n".join(rows)


def table(title: str, figures: dict[str, float]) -> str:
    lines = [f"{title} ({int(figures['pairs'])} pairs)", f"  {'label':<15}{'precision':>10}{'recall':>10}{'F1':>8}"]
    for label in LABELS:
        key = label.replace("-", "_")
        lines.append(f"  {label:<15}{figures[key + '_precision']:>10.2f}{figures[key + '_recall']:>10.2f}"
                     f"{figures[key + '_f1']:>8.2f}")
    lines.append(f"  near-misses called duplicate: {figures['near_miss_called_duplicate']:.1%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", action="store_true", help="list every pair the evaluator gets wrong")
    parser.add_argument("--split", choices=("all", "tune", "holdout"), default="all",
                        help="which pairs --errors lists")
    args = parser.parse_args(argv)
    pairs = load()
    for name in ("tune", "holdout", "all"):
        print(table({"tune": "tuning two thirds", "holdout": "held-out third", "all": "whole set"}[name],
                    evaluate(split(pairs, name))))
        print()
    print(confusion(pairs))
    if args.errors:
        print()
        for p in split(pairs, args.split):
            rel = compare(p["a"], p["b"])
            if rel.label.value != p["label"]:
                print(f"[{p['label']} -> {rel.label.value} {rel.similarity:.2f}] {p['a']} | {p['b']}\n    {rel.reason}")
    print()
    whole, held = evaluate(pairs), evaluate(split(pairs, "holdout"))
    for key in ("duplicate_f1", "contradiction_f1", "near_miss_f1", "unrelated_f1", "near_miss_called_duplicate"):
        print(f"{key}: {whole[key]:.3f}")
    for key in ("duplicate_f1", "contradiction_f1", "near_miss_called_duplicate"):
        print(f"holdout_{key}: {held[key]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
