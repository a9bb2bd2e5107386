"""The tidy-up result page: the summary, the rules made permanent and Undo first; then each file's diff once,
as a side-by-side diff view (one column on a narrow screen)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agentuse.serve.app import create_app
from agentuse.serve.diffview import parse
from serve_project import AGENT_KEY, SERVE_TOKEN, csrf_of, make_project, overcap_store, signed_in

LEARNINGS = f"/agents/{AGENT_KEY}/learnings"
DIFF = """--- a/x.md
+++ b/x.md
@@ -1,4 +1,4 @@
 keep
-old one
-old two
+new one
 tail
\\ No newline at end of file
@@ -10,2 +10,3 @@
 ten
+eleven
+twelve
"""


def test_a_unified_diff_becomes_paired_side_by_side_rows():
    fd = parse("learnings file", DIFF)
    assert (fd.added, fd.removed) == (3, 2)
    kinds = [r.kind for r in fd.rows]
    assert kinds == ["hunk", "same", "change", "change", "same", "hunk", "same", "change", "change"]
    first, second = fd.rows[2], fd.rows[3]
    assert (first.old_no, first.old, first.new_no, first.new) == (2, "old one", 2, "new one")
    assert (second.old_no, second.old, second.new) == (3, "old two", None)  # unpaired: faces a blank
    assert (fd.rows[4].old_no, fd.rows[4].new_no) == (4, 3)
    assert (fd.rows[7].old, fd.rows[7].new_no, fd.rows[7].new) == (None, 11, "eleven")
    assert parse("agent file", "").rows == []


@pytest.fixture
def agent(tmp_path) -> Path:
    return make_project(tmp_path / "blog")


def test_the_result_puts_summary_permanent_rules_and_undo_first_and_each_diff_once(agent):
    overcap_store(agent)
    app = create_app(agent.parent.parent, token=SERVE_TOKEN)
    client = signed_in(app)
    started = client.post(f"/agents/{AGENT_KEY}/tidy", data={"csrf": csrf_of(client.get(LEARNINGS).text)},
                          follow_redirects=False)
    job = app.state.jobs.get(started.headers["location"].rsplit("/", 1)[1])
    for _ in range(6000):
        if job.status != "running":
            break
        threading.Event().wait(0.02)
    assert job.status == "done", job.error
    page = client.get(started.headers["location"]).text
    order = [page.index(mark) for mark in ('data-testid="tidy-summary"', 'data-testid="permanent"',
                                           'data-testid="undo"', 'data-testid="diff"')]
    assert order == sorted(order)
    assert page.count('data-testid="diff"') == sum(1 for text in job.diffs.values() if text) == 2
    assert '<pre class="report">' not in page and "Diff of both files" not in page  # no CLI text dump
    for name, text in job.diffs.items():
        hunks = [line for line in text.splitlines() if line.startswith("@@")]
        assert hunks and all(page.count(f"<td colspan=\"4\">{h}</td>") == 1 for h in hunks), name
    # Every added and removed line is drawn exactly once, in the diff view.
    added = sum(len([l for l in t.splitlines() if l.startswith("+") and not l.startswith("+++")]) for t in job.diffs.values())
    removed = sum(len([l for l in t.splitlines() if l.startswith("-") and not l.startswith("---")]) for t in job.diffs.values())
    assert page.count('<td class="new add">') == added and page.count('<td class="old del">') == removed
