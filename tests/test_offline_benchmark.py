"""The offline evaluator meets its targets on the labelled rule pairs (counts, not timing)."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "rule_pairs.jsonl"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("offline_eval", ROOT / "benchmarks" / "offline_eval.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dataset_is_large_varied_and_well_formed():
    pairs = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(pairs) >= 150
    labels = Counter(p["label"] for p in pairs)
    assert set(labels) == {"duplicate", "contradiction", "near-miss", "unrelated"}
    assert min(labels.values()) >= 35
    assert len({p["domain"] for p in pairs}) >= 8
    assert all(p["a"].strip() and p["b"].strip() and p["a"] != p["b"] for p in pairs)
    assert len({(p["a"], p["b"]) for p in pairs}) == len(pairs)  # no pair twice


def test_offline_classifier_meets_the_targets(bench):
    figures = bench.evaluate(bench.load())
    assert figures["duplicate_f1"] >= 0.85
    assert figures["contradiction_f1"] >= 0.70
    assert figures["near_miss_called_duplicate"] <= 0.05


def test_held_out_third_never_calls_a_near_miss_a_duplicate(bench):
    # The guard against the known failure must hold on pairs the thresholds were not tuned on.
    figures = bench.evaluate(bench.split(bench.load(), "holdout"))
    assert figures["near_miss_called_duplicate"] <= 0.05
    assert figures["contradiction_f1"] >= 0.70


def test_benchmark_prints_figures_last(bench, capsys):
    assert bench.main([]) == 0
    out = capsys.readouterr().out.strip()
    tail = dict(line.split(": ", 1) for line in out.split("\n\n")[-1].splitlines())
    assert {"duplicate_f1", "contradiction_f1", "near_miss_called_duplicate", "frozen_duplicate_f1",
            "frozen_contradiction_f1", "frozen_distinct_called_duplicate", "frozen2_duplicate_f1",
            "frozen2_contradiction_f1", "frozen2_distinct_called_duplicate", "tuning2_duplicate_f1",
            "tuning3_duplicate_f1", "tuning3_distinct_called_duplicate", "frozen3_duplicate_f1",
            "frozen3_contradiction_f1", "frozen3_distinct_called_duplicate", "tuning5_duplicate_f1",
            "frozen4_duplicate_f1", "frozen4_contradiction_f1", "frozen4_distinct_called_duplicate",
            "tuning6_duplicate_f1", "tuning6_holdout_duplicate_f1", "tuning6_distinct_called_duplicate",
            "frozen5_duplicate_f1", "frozen5_contradiction_f1", "frozen5_distinct_called_duplicate",
            "tuning7_duplicate_f1", "tuning7_holdout_duplicate_f1", "tuning7_distinct_called_duplicate",
            "tuning8_duplicate_f1", "tuning8_holdout_duplicate_f1", "tuning8_distinct_called_duplicate",
            "frozen6_duplicate_f1", "frozen6_contradiction_f1", "frozen6_distinct_called_duplicate",
            "frozen7_duplicate_f1", "frozen7_contradiction_f1", "frozen7_distinct_called_duplicate"} <= set(tail)
    assert all(0.0 <= float(value) <= 1.0 for key, value in tail.items() if not key.endswith("distinct_called_duplicate"))


def test_benchmark_prints_every_set_side_by_side(bench, capsys):
    assert bench.main([]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header == ["tuning", "tuning", "held-out", "tuning", "2", "tuning", "3", "tuning", "4", "tuning", "5",
                      "tuning", "5", "held-out", "tuning", "6", "tuning", "6", "held-out", "tuning", "7", "tuning", "7",
                      "held-out", "tuning", "8", "tuning", "8", "held-out", "frozen", "1", "frozen", "2",
                      "frozen", "3", "frozen", "4", "frozen", "5", "frozen", "6", "frozen", "7"]


def test_tuning_only_leaves_the_frozen_sets_out(bench, capsys):
    assert bench.main(["--tuning-only"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["tuning", "tuning", "held-out", "tuning", "2", "tuning", "3", "tuning", "4",
                                           "tuning", "5", "tuning", "5", "held-out", "tuning", "6", "tuning", "6",
                                           "held-out", "tuning", "7", "tuning", "7", "held-out", "tuning", "8",
                                           "tuning", "8", "held-out"]
    assert "frozen" not in out


def test_the_second_frozen_set_is_the_committed_one_and_large_and_varied(bench):
    pairs = bench.load_frozen2()  # raises if the file no longer has the frozen hash
    assert len(pairs) >= 120 and len({p["domain"] for p in pairs}) >= 10
    assert {p["label"] for p in pairs} == {"duplicate", "contradiction", "near-miss", "unrelated"}
    # Written apart from the other sets: no pair of it is a pair of theirs.
    others = {frozenset((p["a"], p["b"])) for p in bench.load() + bench.load(bench.TUNING2) + bench.load_frozen()}
    assert not [p for p in pairs if frozenset((p["a"], p["b"])) in others]


def test_the_frozen_set_is_the_committed_one_and_large_and_varied(bench):
    pairs = bench.load_frozen()  # raises if the file no longer has the frozen hash
    assert len(pairs) >= 120 and len({p["domain"] for p in pairs}) >= 10
    assert {p["label"] for p in pairs} == {"duplicate", "contradiction", "near-miss", "unrelated"}


def test_the_report_refuses_a_changed_first_frozen_set(bench, tmp_path, monkeypatch, capsys):
    changed = tmp_path / "rule_pairs_frozen.jsonl"
    changed.write_bytes(bench.FROZEN.read_bytes() + b"\n")
    with pytest.raises(bench.FrozenSetChanged):
        bench.load_frozen(changed)
    monkeypatch.setattr(bench, "FROZEN", changed)
    monkeypatch.setattr(bench.load_frozen, "__defaults__", (changed,))
    assert bench.main([]) == 2
    assert "refusing to report" in capsys.readouterr().err


def test_the_frozen_set_never_sees_a_distinct_pair_called_duplicate(bench):
    # The hard constraint, checked (not tuned) on pairs written apart from the evaluator.
    assert bench.evaluate(bench.load_frozen())["distinct_called_duplicate"] == 0


def test_the_second_frozen_set_never_sees_a_distinct_pair_called_duplicate(bench):
    # The hard constraint, checked (not tuned) on the set written before the synonym/morphology round.
    assert bench.evaluate(bench.load_frozen2())["distinct_called_duplicate"] == 0


def test_the_third_frozen_set_is_the_committed_one_and_apart_from_the_tuning_sets(bench):
    pairs = bench.load_frozen3()  # raises if the file no longer has the frozen hash
    assert len(pairs) >= 120 and len({p["domain"] for p in pairs}) >= 10
    assert {p["label"] for p in pairs} == {"duplicate", "contradiction", "near-miss", "unrelated"}
    # Never tuned on: no pair of it is a pair of a tuning set (one is also a pair of frozen set 1, which is
    # frozen too).
    tuning = {frozenset((p["a"], p["b"])) for p in bench.load() + bench.load(bench.TUNING2) + bench.load(bench.TUNING3)
              + bench.load(bench.TUNING4)}
    assert sum(frozenset((p["a"], p["b"])) in tuning for p in pairs) == 0


def test_the_fourth_frozen_set_is_the_committed_one_and_apart_from_every_other_set(bench):
    pairs = bench.load_frozen4()  # raises if the file no longer has the frozen hash
    assert len(pairs) >= 120 and len({p["domain"] for p in pairs}) >= 10
    assert {p["label"] for p in pairs} == {"duplicate", "contradiction", "near-miss", "unrelated"}
    others = [bench.DATA, bench.TUNING2, bench.TUNING3, bench.TUNING4, bench.TUNING5, bench.FROZEN, bench.FROZEN2,
              bench.FROZEN3]
    seen = {frozenset((p["a"], p["b"])) for path in others for p in bench.load(path)}
    assert sum(frozenset((p["a"], p["b"])) in seen for p in pairs) == 0


@pytest.mark.parametrize("which", ["2", "3", "4", "5", "6", "7"])
def test_the_report_refuses_a_changed_frozen_set(which, bench, tmp_path, monkeypatch, capsys):
    path, loader = getattr(bench, f"FROZEN{which}"), getattr(bench, f"load_frozen{which}")
    changed = tmp_path / path.name
    changed.write_bytes(path.read_bytes().replace(b"near-miss", b"duplicate", 1))  # one label changed
    with pytest.raises(bench.FrozenSetChanged):
        loader(changed)
    monkeypatch.setattr(loader, "__defaults__", (changed,))
    assert bench.main([]) == 2
    assert "refusing to report" in capsys.readouterr().err


def test_the_fifth_frozen_set_is_the_committed_one_and_apart_from_every_other_set(bench):
    pairs = bench.load_frozen5()  # raises if the file no longer has the frozen hash
    assert len(pairs) >= 120 and len({p["domain"] for p in pairs}) >= 10
    assert {p["label"] for p in pairs} == {"duplicate", "contradiction", "near-miss", "unrelated"}
    others = [bench.DATA, bench.TUNING2, bench.TUNING3, bench.TUNING4, bench.TUNING5, bench.TUNING6, bench.FROZEN,
              bench.FROZEN2, bench.FROZEN3, bench.FROZEN4]
    seen = {text for path in others for p in bench.load(path) for text in (p["a"], p["b"])}
    assert sum(p["a"] in seen or p["b"] in seen for p in pairs) == 0  # not even one sentence shared


def test_the_sixth_frozen_set_is_the_committed_one_and_apart_from_every_other_set(bench):
    pairs = bench.load_frozen6()  # raises if the file no longer has the frozen hash
    assert len(pairs) >= 120 and len({p["domain"] for p in pairs}) >= 10
    assert {p["label"] for p in pairs} == {"duplicate", "contradiction", "near-miss", "unrelated"}
    others = [bench.DATA, bench.TUNING2, bench.TUNING3, bench.TUNING4, bench.TUNING5, bench.TUNING6, bench.FROZEN,
              bench.FROZEN2, bench.FROZEN3, bench.FROZEN4, bench.FROZEN5]
    seen = {text for path in others for p in bench.load(path) for text in (p["a"], p["b"])}
    assert sum(p["a"] in seen or p["b"] in seen for p in pairs) == 0  # not even one sentence shared
    domains = {p["domain"] for path in others for p in bench.load(path)}
    assert not domains & {p["domain"] for p in pairs}  # and no kind of agent another set has


def test_the_seventh_frozen_set_is_the_committed_one_and_apart_from_every_other_set(bench):
    pairs = bench.load_frozen7()  # raises if the file no longer has the frozen hash
    assert len(pairs) >= 120 and len({p["domain"] for p in pairs}) >= 10
    assert {p["label"] for p in pairs} == {"duplicate", "contradiction", "near-miss", "unrelated"}
    others = [bench.DATA, bench.TUNING2, bench.TUNING3, bench.TUNING4, bench.TUNING5, bench.TUNING6, bench.TUNING7,
              bench.TUNING8, bench.FROZEN, bench.FROZEN2, bench.FROZEN3, bench.FROZEN4, bench.FROZEN5, bench.FROZEN6]
    seen = {text for path in others for p in bench.load(path) for text in (p["a"], p["b"])}
    assert sum(p["a"] in seen or p["b"] in seen for p in pairs) == 0  # not even one sentence shared
    domains = {p["domain"] for path in others for p in bench.load(path)}
    assert not domains & {p["domain"] for p in pairs}  # and no kind of agent another set has


def test_every_tuning_set_never_sees_a_distinct_pair_called_duplicate(bench):
    for path in (bench.DATA, bench.TUNING2, bench.TUNING3, bench.TUNING4, bench.TUNING5):
        assert bench.evaluate(bench.load(path))["distinct_called_duplicate"] == 0, path.name


def test_the_third_frozen_set_never_sees_a_distinct_pair_called_duplicate(bench):
    # The hard constraint, checked (not tuned) on the set written by a session that never read the evaluator.
    assert bench.evaluate(bench.load_frozen3())["distinct_called_duplicate"] == 0


def test_the_fourth_frozen_set_never_sees_a_distinct_pair_called_duplicate(bench):
    # The hard constraint, checked (not tuned) on the set written for this round before it changed anything.
    assert bench.evaluate(bench.load_frozen4())["distinct_called_duplicate"] == 0


# Both new sets, measured before the round that tuned on tuning 6 changed anything, had one distinct pair
# called duplicate each: the failure the evaluator exists to avoid, left visible until it is fixed.
# Tuning 6's ("squash commits" / "merge with a merge commit") is fixed: a closed-set member left over against
# another the other rule names is never a duplicate. Frozen 5, read once at the end of that round, still has
# one (a contradiction): it is never tuned on, so only a later round's generalising can fix it.
_ONE_CALLED_DUPLICATE = pytest.mark.xfail(strict=True, reason="issue 16: one distinct pair called duplicate")


@_ONE_CALLED_DUPLICATE
def test_the_fifth_frozen_set_never_sees_a_distinct_pair_called_duplicate(bench):
    # The hard constraint, checked (not tuned) on the set written for this round before it changed anything.
    assert bench.evaluate(bench.load_frozen5())["distinct_called_duplicate"] == 0


# Frozen 6, read once at the end of the round that tuned on tuning 7 and 8, has one too (a contradiction), as
# it had with the evaluator before that round: the same failure, left visible the same way.
@_ONE_CALLED_DUPLICATE
def test_the_sixth_frozen_set_never_sees_a_distinct_pair_called_duplicate(bench):
    assert bench.evaluate(bench.load_frozen6())["distinct_called_duplicate"] == 0


# Frozen 7, read once at the end of the sixth round, arrived with one as well (the evaluator of 217a77a, before
# that round, calls it a duplicate too), and the round did not reach it.
@_ONE_CALLED_DUPLICATE
def test_the_seventh_frozen_set_never_sees_a_distinct_pair_called_duplicate(bench):
    assert bench.evaluate(bench.load_frozen7())["distinct_called_duplicate"] == 0


def test_the_sixth_tuning_set_never_sees_a_distinct_pair_called_duplicate(bench):
    assert bench.evaluate(bench.load(bench.TUNING6))["distinct_called_duplicate"] == 0


@pytest.mark.parametrize("which", ["7", "8"])
def test_the_seventh_and_eighth_tuning_sets_never_see_a_distinct_pair_called_duplicate(which, bench):
    # Tuning 7 arrived with one ("let visitors touch the animals" / "keep visitors from touching any animal").
    assert bench.evaluate(bench.load(getattr(bench, f"TUNING{which}")))["distinct_called_duplicate"] == 0
