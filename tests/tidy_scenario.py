"""The spec's 58-learning tidy-up on examples/seeds/overgrown.learnings.md, with scripted model answers.

The seed holds: 9 proven rules (one repeated by a person), 2 rules vetted against older instructions
that the current ones contradict, three clusters of near-duplicates (9, 8 and 6 rules), and 12 older
rules each superseded by a sharper one. The scripted model is cautious the way the spec describes a
single pass: it merges at most five rules in one move, so the clusters take a second pass to finish.
"""

from __future__ import annotations

import shutil
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fakes.scripted_helper import ScriptedHelper, block_unchanged, nothing_missing

from agentuse.core.helper import protocol as p

REPO = Path(__file__).resolve().parents[1]
AGENT_EXAMPLE = REPO / "examples" / "blog-writer.agentuse"
SEED = REPO / "examples" / "seeds" / "overgrown.learnings.md"
SPEC_SUMMARY = "3 merged, 1 rewritten, 12 retired, 2 quarantined, 9 now permanent — 58 → 15 in force"

# Seed ids by role (examples/seeds/overgrown.learnings.md).
ROLES = {
    "R1": "9644d16e", "R2": "f281cb1b", "R3": "f91cdf94", "R4": "553e9c0b", "R5": "9584e808", "R6": "20d659f3",
    "R7": "41dc2622", "R8": "347a2d37", "R9": "766e4c58", "R10": "32dddada", "R11": "9c1f053e", "R12": "74521fed",
    "S1": "b2045e7f", "S2": "e1bf06c6", "S3": "101ea4f9", "S4": "0b607e06", "S5": "3be05ab4", "S6": "08bd82d6",
    "S7": "0f04b34e", "S8": "34efe161", "S9": "934b3d79", "S10": "1fc427e2", "S11": "0c543bca", "S12": "7d8b3902",
    "A1": "ecea8753", "A2": "41abc9e2", "A3": "849404b6", "A4": "7e188905", "A5": "b44c13a9", "A6": "496cacfd",
    "A7": "b8a41c62", "A8": "c6df8f66", "A9": "f44819bd",
    "B1": "aba802f5", "B2": "1678c2f5", "B3": "7d23ec06", "B4": "09a68942", "B5": "e76556de", "B6": "52196d07",
    "B7": "f49d942c", "B8": "0e13559a",
    "C1": "726dd114", "C2": "20d38770", "C3": "8d97008c", "C4": "206c655c", "C5": "11aa3ab3", "C6": "ef544544",
    "G1": "7c75f220", "G2": "2d574e9e", "G3": "3a4e572b", "G4": "4c5b5b21", "G5": "9eb45fca", "G6": "e146d67b",
    "G7": "1788bb99", "G8": "9f902175", "G9": "b1e404be",
    "Q1": "6661e30f", "Q2": "49131c24",
}

MERGED = {
    "A": p.Draft(category="pattern", title="Give every tip a time estimate in minutes",
                 body='State how many minutes each tip takes to try (e.g. "5-minute brain dump", "a 10-minute '
                      'weekly review") so it feels achievable.'),
    "B": p.Draft(category="tip", title="Show each tip in a concrete everyday scenario",
                 body='Replace abstract advice ("be more focused") with one specific scenario the reader can '
                      'picture, a time, a place and an action ("close Slack for the first hour").'),
    "C": p.Draft(category="pattern", title="Keep paragraphs to one to three sentences",
                 body="Readers skim on phones: split any paragraph longer than three sentences."),
}
SHARPENED = p.Draft(category="tip", title="State the main takeaway in the first two sentences",
                    body="Right after the hook, say what the reader will get from the post in at most two "
                         "sentences.")
STALE_CONFLICTS = {"Q1": "Include 3 actionable tips",
                   "Q2": "Write short productivity blog posts (150-200 words)"}


BLOG_SEED = REPO / "examples" / "seeds" / "blog-writer.learnings.md"  # the README's small store


def install(project: Path, location_of, seed: Path = SEED) -> Path:
    """Copy the example agent into `project` and `seed` (the overgrown one) into its store; return the agent."""
    project.mkdir(parents=True, exist_ok=True)
    agent = project / "blog-writer.agentuse"
    shutil.copyfile(AGENT_EXAMPLE, agent)
    store_path = location_of(agent).store_path
    store_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(seed, store_path)
    return agent


@contextmanager
def killed_writing(path: Path, monkeypatch) -> Iterator[None]:
    """The process dies (KeyboardInterrupt) as it is about to replace `path`; every other write goes through."""
    from agentuse.core import store

    real_write = store.atomic_write

    def dies_there(target, text, **options):
        if target == path:
            raise KeyboardInterrupt("killed")
        real_write(target, text, **options)

    monkeypatch.setattr(store, "atomic_write", dies_there)
    try:
        yield
    finally:
        monkeypatch.setattr(store, "atomic_write", real_write)


class Scenario:
    """The scripted model: merge near-duplicates (at most `max_merge` per move), retire superseded rules,
    sharpen the repeated one, quarantine the two stale ones, leave the permanent block as it is."""

    def __init__(self, max_merge: int = 5) -> None:
        self.max_merge = max_merge
        self.cluster_of = {rid: role[0] for role, rid in ROLES.items() if role[0] in "ABC"}
        self.supersedes = {ROLES[f"R{i}"]: ROLES[f"S{i}"] for i in range(1, 13)}
        self.product_cluster: dict[str, str] = {}
        self._lock = threading.Lock()

    def helper(self, **overrides) -> ScriptedHelper:
        ops = dict(vet=self.vet, plan_groups=self.plan, rewrite_group=self.rewrite, audit=nothing_missing,
                   rewrite_block=block_unchanged)
        ops.update(overrides)
        return ScriptedHelper(**ops)

    def _cluster(self, rule: p.RuleRef) -> str | None:
        with self._lock:
            return self.cluster_of.get(rule.id) or self.product_cluster.get(rule.text)

    def vet(self, request: p.VetRequest) -> p.VetAnswer:
        stale = {ROLES[k]: v for k, v in STALE_CONFLICTS.items()}
        return p.VetAnswer(verdicts=[
            p.VetVerdict(id=c.id, verdict="contradiction", detail=stale[c.id]) if c.id in stale
            else p.VetVerdict(id=c.id, verdict="pass")
            for c in request.candidates])

    def plan(self, request: p.PlanRequest) -> p.PlanAnswer:
        clusters: dict[str, list[str]] = defaultdict(list)
        for rule in request.rules:
            if cluster := self._cluster(rule):
                clusters[cluster].append(rule.id)
        moves = [p.Move(kind="merge", ids=ids[: self.max_merge], reason="near-duplicates")
                 for ids in clusters.values() if len(ids) >= 2]
        present = {r.id for r in request.rules}
        moves += [p.Move(kind="retire", ids=[old], superseded_by=new, reason="the newer rule states it fully")
                  for old, new in self.supersedes.items() if old in present and new in present]
        moves += [p.Move(kind="rewrite", ids=[r.id], reason="repeated: the wording is not landing")
                  for r in request.rules if r.re > 0]
        return p.PlanAnswer(moves=moves)

    def rewrite(self, request: p.RewriteRequest) -> p.RewriteAnswer:
        ids = [r.id for r in request.originals]
        if request.kind == "merge":
            cluster = next(c for c in map(self._cluster, request.originals) if c)
            draft = MERGED[cluster]
            with self._lock:
                self.product_cluster[f"{draft.title}\n{draft.body}"] = cluster
            return p.RewriteAnswer(rule=draft, covers=ids)
        return p.RewriteAnswer(rule=SHARPENED, covers=ids)


def check_rule_events(events, passes) -> None:
    """Each "rewriting N rules…" is followed by N per-rule events counting 1..N, before anything else."""
    stages = [(info.pass_no, info.rewrites) for info in passes if info.rewrites]
    seen = []
    for i, event in enumerate(events):
        if event.kind != "rewriting":
            continue
        ticks = events[i + 1: i + 1 + event.count]
        assert [(t.kind, t.pass_no, t.count, t.of) for t in ticks] == [
            ("written", event.pass_no, n, event.count) for n in range(1, event.count + 1)]
        after = events[i + 1 + event.count:]
        assert not after or after[0].kind != "written"
        seen.append((event.pass_no, event.count))
    assert seen == stages
    assert sum(e.kind == "written" for e in events) == sum(n for _, n in stages)
