"""What every benchmark shares: realistic rules, a throw-away project, timing, and the figure lines.

Figures are printed last as `name: value` lines. The machine these run on is shared and noisy, so each
benchmark reports ratios and counts first; milliseconds are printed too, for scale, never as a verdict.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path

from agentuse.core.learning import Category, Channel, Learning, Source, State

# Words from the spec's own examples, so rule lengths and token counts look like real rules.
_SUBJECTS = ["intro", "call-to-action", "tip", "source link", "post", "headline", "summary", "draft",
             "upload", "selector", "time estimate", "quote", "study", "list", "paragraph", "title"]
_VERBS = ["keep", "cite", "include", "avoid", "shorten", "check", "link", "name", "reuse", "verify"]
_TAILS = ["before publishing", "in informational posts", "when the post is under 150 words",
          "unless the reviewer asked otherwise", "for every actionable tip", "on same-day re-runs",
          "rather than abstract advice", "with a concrete scenario", "when a study is mentioned",
          "so the reader can act in five minutes"]
AGENT_BODY = """# Blog Writer

Write short productivity blog posts (150-200 words) and save each one as a markdown file under
`posts/`.

## Requirements
- Start with a relatable hook
- Include 3 actionable tips
- End with a clear call-to-action
"""


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(_VERBS).capitalize()} the {rng.choice(_SUBJECTS)} {rng.choice(_TAILS)}."


def make_rules(n: int, *, seed: int = 7, ih: str | None = None, start: date = date(2026, 1, 1)) -> list[Learning]:
    """`n` rules shaped like the spec's: mostly active, some quarantined, a few tool-errors records."""
    rng = random.Random(seed)
    rules = []
    for i in range(n):
        kind = rng.random()
        src = Source.auto if kind < 0.5 else (Source.approval if kind < 0.8 else Source.manual)
        ch = Channel.custom if src is Source.auto else Channel.corrections
        tool = sig = evidence = why = None
        state = State.active
        if i % 10 == 9:
            ch, tool, sig = Channel.tool_errors, f"browser.tool{i}", f"files.length remained # ({i})"
            evidence = f'failed: {{"path":"./shot{i}.png"}} → succeeded: {{"path":"/Users/me/shot{i}.png"}}'
        elif i % 13 == 12:
            state, why = State.quarantined, 'contradicts the contract: "End with a clear call-to-action"'
        body = " ".join(sentence(rng) for _ in range(rng.randint(1, 4)))
        rules.append(Learning(
            id=f"{i:08x}", category=list(Category)[i % len(Category)] if tool is None else Category.error_fix,
            title=sentence(rng).rstrip("."), body=body, date=(start + timedelta(days=i % 300)).isoformat(),
            confidence=round(rng.uniform(0.7, 1.0), 2), injected=rng.randint(0, 40), src=src, ch=ch, ih=ih,
            tool=tool, sig=sig, sess=f"01K8ZQ3V5W6X7Y8Z9A0B{i:06d}", state=state, re=int(rng.random() < 0.1),
            ok=rng.randint(0, 2), why=why, evidence=evidence,
        ))
    return rules


def agent_text(*, cap: int = 15, body: str = AGENT_BODY) -> str:
    return (f"---\nmodel: anthropic:claude-sonnet-5\napproval: true\nlearning:\n  capture:\n"
            f"    addons: [tool-errors]\n  apply: true\n  max: {cap}\n---\n\n{body}")


@contextmanager
def project(*, cap: int = 15) -> "os.PathLike":
    """A temporary project outside git with one agent file, and a state dir of its own (never ~/.local)."""
    with tempfile.TemporaryDirectory(prefix="agentuse-bench-") as tmp:
        root = Path(tmp)
        (root / "state").mkdir()
        previous = os.environ.get("AGENTUSE_DATA_DIR")
        os.environ["AGENTUSE_DATA_DIR"] = str(root / "state")
        agent = root / "proj" / "blog-writer.agentuse"
        agent.parent.mkdir()
        agent.write_text(agent_text(cap=cap), encoding="utf-8")
        try:
            yield agent
        finally:
            if previous is None:
                os.environ.pop("AGENTUSE_DATA_DIR", None)
            else:
                os.environ["AGENTUSE_DATA_DIR"] = previous


def median_seconds(fn: Callable[[], object], *, runs: int, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def machine() -> dict[str, str]:
    return {"nproc": str(os.cpu_count()), "python": sys.version.split()[0]}


def print_figures(figures: dict[str, object]) -> None:
    """The last lines of every benchmark: one `name: value` per figure."""
    for name, value in figures.items():
        if isinstance(value, float):
            value = f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
        print(f"{name}: {value}")
