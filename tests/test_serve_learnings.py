"""The Learnings tab: groups that fold with their counts (what needs a decision first), a filter box, discard,
restore and edit on every rule through the CLI's own functions, each rule's effectiveness line with a
small chart, the agent's rules in force against the cap, and notices that agree with the last tidy-up."""

from __future__ import annotations

import re
import time
from datetime import date
from pathlib import Path

import pytest

from agentuse.core import effectiveness, store
from agentuse.core.describe import describe
from agentuse.core.learning import Source, State
from agentuse.core.status_text import figures_line, render_learnings
from agentuse.core.session_ids import new_session_id
from agentuse.serve.app import create_app
from serve_project import (AGENT_KEY, SERVE_TOKEN, add_rules, counted, csrf_of, make_project, overcap_store, rule,
                           signed_in)

LEARNINGS = f"/agents/{AGENT_KEY}/learnings"
GREEK = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon"


@pytest.fixture
def agent(tmp_path) -> Path:
    return make_project(tmp_path / "blog")


@pytest.fixture
def app(agent):
    return create_app(agent.parent.parent, token=SERVE_TOKEN)


@pytest.fixture
def client(app):
    return signed_in(app)


def post(client, action: str, data: dict | None = None, page: str = LEARNINGS):
    return client.post(action, data={"csrf": csrf_of(client.get(page).text), **(data or {})}, follow_redirects=False)


def groups_of(html: str) -> list[tuple[str, bool, str]]:
    """(group key, open, summary text) of every folding group, in page order."""
    found = re.findall(r'<details class="group[^"]*" data-group="(\w+)"( open)?>\s*<summary>(.*?)</summary>', html, re.S)
    return [(key, bool(opened), " ".join(re.sub(r"<[^>]+>", " ", title).split())) for key, opened, title in found]


def rule_ids(html: str, group: str) -> list[str]:
    if f'data-group="{group}"' not in html:
        return []
    section = html.split(f'data-group="{group}"', 1)[1].split('<details class="group', 1)[0]
    return re.findall(r'<li class="rule" id="rule-(\w+)"', section)


def test_groups_fold_with_their_counts_and_what_needs_a_decision_comes_before_outside_the_cap(client, agent):
    overcap_store(agent)
    html = client.get(LEARNINGS).text
    found = groups_of(html)
    keys = [key for key, _, _ in found]
    assert keys.index("applied") < keys.index("quarantined") < keys.index("stale") < keys.index("outside_cap")
    opened = {key: is_open for key, is_open, _ in found}
    assert opened["applied"] and opened["quarantined"] and opened["stale"] and not opened["outside_cap"]
    _, _, report = describe(agent)
    for key, _, title in found:
        if key in ("outside_cap", "quarantined", "stale"):
            count = int(re.search(r"\((\d+)\)", title).group(1))
            assert count == len([e for e in report.entries if e.group == key]) == len(rule_ids(html, key))


def test_the_filter_box_offers_text_category_source_channel_and_state(client, agent):
    html = client.get(LEARNINGS).text
    assert 'id="filter-text"' in html and '<script src="/static/learnings.js" defer></script>' in html
    for key in ("category", "src", "ch", "state"):
        assert f'data-key="{key}"' in html
    rules = store.load(store.locate(agent)).learnings
    for r in rules:  # every rule carries what the filter matches on
        li = re.search(rf'<li class="rule" id="rule-{r.id}"[^>]*>', html, re.S).group(0)
        assert f'data-category="{r.category.value}"' in li and f'data-src="{r.src.value}"' in li
        assert 'data-ch="' in li and 'data-state="' in li and r.title.lower()[:20] in li
    assert client.get("/static/learnings.js").status_code == 200


def test_a_discarded_rule_is_listed_in_the_archive_and_restore_puts_it_back_re_vetted(client, agent):
    location = store.locate(agent)
    title = next(r.title for r in store.load(location).learnings if r.id == "a1b2c3d4")
    post(client, f"{LEARNINGS}/a1b2c3d4/discard")
    html = client.get(LEARNINGS).text
    assert "a1b2c3d4" in rule_ids(html, "archived")
    assert f'action="/agents/{AGENT_KEY}/learnings/a1b2c3d4/restore"' in html
    answer = post(client, f"{LEARNINGS}/a1b2c3d4/restore")
    assert answer.status_code == 303
    assert "a1b2c3d4" in {r.id for r in store.load(location).learnings}
    shown = client.get(answer.headers["location"]).text
    assert f"Restored &#34;{title}&#34; (id:a1b2c3d4)" in shown  # the line `agentuse learnings restore` prints
    assert 'id="rule-a1b2c3d4"' in shown and shown.count('id="rule-a1b2c3d4"') == 1  # live again, not archived


def test_every_live_rule_has_discard_and_edit_and_every_archived_one_restore(client, agent):
    post(client, f"{LEARNINGS}/a1b2c3d4/discard")
    html = client.get(LEARNINGS).text
    for r in store.load(store.locate(agent)).learnings:
        assert f"/learnings/{r.id}/discard" in html and f"/learnings/{r.id}/edit" in html
    for rule_id in rule_ids(html, "archived"):
        assert f"/learnings/{rule_id}/restore" in html


def test_an_edit_is_vetted_like_an_add_and_the_old_wording_is_archived(client, agent):
    location = store.locate(agent)
    answer = post(client, f"{LEARNINGS}/a1b2c3d4/edit", {"text": "Cite the primary study itself, with a link."})
    shown = client.get(answer.headers["location"]).text
    assert "Replaced &#34;" in shown and "[Learning] Saved &#34;Cite the primary study itself" in shown
    rules = store.load(location).learnings
    assert "a1b2c3d4" not in {r.id for r in rules}
    [new] = [r for r in rules if r.title.startswith("Cite the primary study itself")]
    assert new.src is Source.manual and new.ih  # vetted and stamped against the instructions, as an add is
    assert "a1b2c3d4" in {r.id for r in store.load_archive(location).learnings}
    empty = post(client, f"{LEARNINGS}/{new.id}/edit", {"text": "  "})
    assert "the edit box was empty" in client.get(empty.headers["location"]).text
    assert new.id in {r.id for r in store.load(location).learnings}


@pytest.mark.parametrize("rule_id", ["a1b2c3d4", "b2c3d4e5"])  # a reviewer's rule; an auto-extracted one
def test_an_edit_whose_new_wording_cannot_be_saved_leaves_the_rule_as_it_was(client, agent, monkeypatch, rule_id):
    """The old wording is archived before the new one is vetted; when the vet's model call fails, the page
    must say the edit was not saved, and the rule must still be in force as it was, where it was. It was
    left in the archive, and the page's remedy (Restore) re-vets: with the model still down, an
    auto-extracted rule is never put back unvetted, so a failed edit took a vetted rule out of force."""
    from agentuse.core.helper.protocol import TransientHelperError
    from agentuse.flows import remember

    def outage(*args, **kwargs):
        raise TransientHelperError("anthropic:claude: overloaded after 3 attempts", operation="vet")

    location = store.locate(agent)
    before = store.load(location).learnings
    archived = store.load_archive(location).learnings
    monkeypatch.setattr(remember, "run_remember", outage)
    answer = post(client, f"{LEARNINGS}/{rule_id}/edit", {"text": "Cite the primary study itself, with a link."})
    assert answer.status_code == 502
    page = " ".join(re.sub(r"<[^>]+>", " ", answer.text).split())
    assert "overloaded after 3 attempts" in page
    assert "The edit was not saved" in page and f"id:{rule_id}" in page and "keeps its old wording" in page
    assert store.load(location).learnings == before  # in force, stamp and counts as they were, in its place
    assert store.load_archive(location).learnings == archived
    assert f'id="rule-{rule_id}"' in client.get(LEARNINGS).text


def test_an_edit_keeps_the_old_wording_in_force_until_the_new_one_is_saved(client, agent, monkeypatch):
    """The new wording is grounded and vetted by model calls (seconds, up to the helper's deadline). The old
    wording was archived before them, so a serve process killed meanwhile (SIGKILL, OOM, a closed laptop:
    no except clause runs) left a person's rule out of force, archived as 'discarded by hand', and nothing
    said so. What such a kill leaves is what the store holds while the calls are out."""
    from agentuse.flows import remember

    location = store.locate(agent)
    before = store.load(location).learnings
    seen = []

    def killed_while_vetting(*args, **kwargs):
        seen.append((store.load(location).learnings, store.load_archive(location).learnings))
        raise KeyboardInterrupt("the process dies here")

    monkeypatch.setattr(remember, "run_remember", killed_while_vetting)
    with pytest.raises(BaseException):  # as the worker thread hands it back (anyio: a cancellation)
        post(client, f"{LEARNINGS}/a1b2c3d4/edit", {"text": "Cite the primary study itself, with a link."})
    [(in_force, archived)] = seen
    assert in_force == before and "a1b2c3d4" not in {r.id for r in archived}


def test_each_rule_shows_the_cli_s_effectiveness_line_and_a_small_chart(client, agent):
    location = store.locate(agent)
    live = [r for r in store.load(location).learnings if r.state is State.active]
    for i in range(3):
        digest = effectiveness.SessionDigest(outcome=("approved", "commented", "rejected")[i],
                                             rounds=[effectiveness.RoundDigest(injected=[live[0].id])])
        counted(agent, new_session_id(), digest)
    _, _, report = describe(agent)
    cli = render_learnings(report)
    html = client.get(LEARNINGS).text
    for entry in report.entries:
        line = figures_line(entry.figures)
        assert f"    {line}" in cli
        li = html.split(f'id="rule-{entry.record["id"]}"', 1)[1].split("</li>", 1)[0]
        assert f"<span>{line}</span>" in li and 'data-testid="rule-chart"' in li
    first = html.split(f'id="rule-{live[0].id}"', 1)[1].split("</li>", 1)[0]
    assert "in force 3 runs · 1 approved clean · 1 commented · 1 rejected" in first
    assert all(re.search(rf'<rect class="{kind}" x="[\d.]+" y="0" width="40.0"', first)
               for kind in ("approved", "commented", "rejected"))


def test_the_agent_chart_draws_rules_in_force_against_the_cap_run_by_run(client, agent):
    assert 'data-testid="in-force-chart"' not in client.get(LEARNINGS).text  # nothing counted yet
    start = time.mktime(date(2026, 3, 1).timetuple())
    for day, count in enumerate((2, 5, 4)):
        digest = effectiveness.SessionDigest(outcome="approved", rounds=[
            effectiveness.RoundDigest(injected=[f"r{n:07x}" for n in range(count)])])
        counted(agent, new_session_id(clock=lambda: start + day * 86400), digest)
    html = client.get(LEARNINGS).text
    chart = re.search(r'<svg class="chart" role="img"[^>]*data-testid="in-force-chart">.*?</svg>', html, re.S).group(0)
    assert chart.count('<circle class="dot"') == 3
    assert "against the cap of 15; the latest run had 4." in chart
    assert "cap 15" in chart and "2026-03-01" in chart and "3 runs" in chart
    assert "<script" not in chart


def _wait(job, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while job.status == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.status != "running", "the tidy-up did not finish"


def test_after_a_tidy_up_that_went_as_far_as_it_can_the_notice_does_not_promise_another_tidy(app, client, agent):
    today = date.today().isoformat()  # within the grace period: no tidy-up may retire them
    add_rules(agent, [rule(f"f{i:07x}", f"Distinct habit {word}", date=today) for i, word in enumerate(GREEK.split())])
    before = client.get(LEARNINGS).text
    assert "the next capture or tidy retires them" in before  # the CLI's line, true before any tidy-up
    started = post(client, f"/agents/{AGENT_KEY}/tidy")
    job = app.state.jobs.get(started.headers["location"].rsplit("/", 1)[1])
    _wait(job)
    assert job.result.overcap is not None and job.result.overcap.further is None
    notice = re.search(r'data-testid="outside-cap">(.*?)</div>', client.get(LEARNINGS).text, re.S).group(1)
    assert "that is as far as tidying up can take it" in notice
    assert "the next capture or tidy retires them" not in notice
    # A server that did not run it (a tidy-up from the terminal) still does not promise one.
    other = signed_in(create_app(agent.parent.parent, token=SERVE_TOKEN))
    notice = re.search(r'data-testid="outside-cap">(.*?)</div>', other.get(LEARNINGS).text, re.S).group(1)
    assert "tidying up again would not retire them" in notice and "next capture or tidy" not in notice
