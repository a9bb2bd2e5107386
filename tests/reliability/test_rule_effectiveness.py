"""Rule effectiveness (issue 18, first slice): per rule, the runs it was in force for and how they ended,
counted from real session logs into the index at each run's end, shown by `learnings stats` and under
each rule of `learnings <file>`, and rebuilt from the logs to the same result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentuse.core import effectiveness, store
from agentuse.core.learning import Channel, Source
from agentuse.runtime import effectiveness as counting

from capture_support import EXAMPLE_SESSION, copy_example, current_ih, make_agent, rule, seed
from reliability.sessions_support import UPLOAD_SIG, Run, invoke, stats_json


@pytest.fixture
def agent(tmp_path):
    path = make_agent(tmp_path / "blog")
    seed(path, [  # dated before the sessions below (2025-11-01), so every one of them could carry them
        rule("aaaa0001", "Save posts under posts/", src=Source.manual, date_=BEFORE_THE_RUNS),
        rule("bbbb0002", f"upload: {UPLOAD_SIG}", ch=Channel.tool_errors, tool="upload", sig=UPLOAD_SIG,
             date_=BEFORE_THE_RUNS),
        rule("cccc0003", "Link the sources", date_=BEFORE_THE_RUNS),
    ])
    return path


BEFORE_THE_RUNS = "2025-10-01"


def record_the_sessions(agent: Path) -> None:
    a, b = "aaaa0001", "bbbb0002"
    # approved with no comment; the upload failure the tool-errors rule is about came back while it was in force
    Run(agent, "01K8ZEFF000000000000000001", [a, b]).call("upload", "files.length remained 0").call("upload").gate() \
        .decide("approve")
    # approved, but the reviewer wrote a comment: no clean approval
    Run(agent, "01K8ZEFF000000000000000002", [a, b]).call("upload").gate().decide("approve", "Shorter intro")
    Run(agent, "01K8ZEFF000000000000000003", [a]).gate().decide("reject")
    Run(agent, "01K8ZEFF000000000000000004", [a, b], approval=False).call("read", "no such file").end("completed")
    # the rule came in with the revision round (--remember), and the failure came back in that round
    Run(agent, "01K8ZEFF000000000000000005", [a]).call("upload", "files.length remained 3").gate() \
        .decide("revise", "Fix the upload").round(2, [a, b]).call("upload", "files.length remained 1").gate() \
        .decide("approve")
    Run(agent, "01K8ZEFF000000000000000006", [a, b]).gate()  # still awaiting review
    # the failure happened in round 1, before the rule was injected (round 2): it did not recur under the rule
    Run(agent, "01K8ZEFF000000000000000007", [a]).call("upload", "files.length remained 3").gate() \
        .decide("revise", "Fix the upload").round(2, [a, b]).call("upload").gate().decide("reject")


def test_each_rule_counts_the_runs_it_was_in_force_for_and_how_they_ended(agent):
    record_the_sessions(agent)
    found = stats_json(agent)
    by_id = {r["id"]: r for r in found["rules"]}
    assert found["runs"] == 7
    fields = ("runs", "approved", "commented", "rejected", "no_gate", "pending", "failed", "recurred")
    assert {i: tuple(r[f] for f in fields) for i, r in by_id.items()} == {
        "aaaa0001": (7, 1, 2, 2, 1, 1, 0, None),
        "bbbb0002": (6, 1, 2, 1, 1, 1, 0, 2),
        "cccc0003": (0, 0, 0, 0, 0, 0, 0, None),
    }
    assert found["never_injected"] == ["cccc0003"] and found["not_landing"] == ["bbbb0002"]
    table = invoke("learnings", "stats", str(agent)).stdout
    assert "runs counted: 7" in table and "rules never injected: 1 (cccc0003)" in table
    assert ("rules not landing (their failure recurred, or a reviewer commented on what they say, while they were in "
            "force): 1 (bbbb0002)") in table


def test_the_learnings_list_and_its_json_carry_the_same_figures(agent):
    record_the_sessions(agent)
    listed = invoke("learnings", str(agent)).stdout
    assert "    in force 7 runs · 1 approved clean · 2 commented · 2 rejected · 1 no gate · 1 awaiting review\n" in listed
    assert "    in force 6 runs · 1 approved clean · 2 commented · 1 rejected · 1 no gate · 1 awaiting review · recurred 2×\n" in listed
    assert "    in force 0 runs · 0 approved clean · 0 commented\n" in listed
    entries = json.loads(invoke("learnings", str(agent), "--json").stdout)["entries"]
    figures = {e["record"]["id"]: e["figures"] for e in entries}
    assert figures["bbbb0002"] == {"runs": 6, "approved": 1, "commented": 2, "rejected": 1, "no_gate": 1,
                                   "pending": 1, "failed": 0, "recurred": 2, "commented_about": 0, "since_added": 7,
                                   "since_added_all": True}


def test_rebuild_from_the_logs_equals_the_incremental_index(agent):
    record_the_sessions(agent)
    location = store.locate(agent)
    path = effectiveness.index_path(location.project_dir, location.key)
    incremental, counted = path.read_text(), stats_json(agent)
    path.unlink()  # never the only copy: the logs hold everything
    assert stats_json(agent)["runs"] == 0
    assert stats_json(agent, "--rebuild") == counted
    assert path.read_text() == incremental


def test_a_log_that_cannot_be_read_does_not_stop_the_rebuild(agent):
    # `sessions list` names such an entry; the recount counts every log it can read.
    record_the_sessions(agent)
    counted = stats_json(agent)
    (store.locate(agent).session_dir / "01K8ZEFF00000000000000000X.jsonl").mkdir()  # a folder, not a log
    assert stats_json(agent, "--rebuild") == counted


def test_an_unreadable_index_is_rebuilt_from_the_logs_in_one_line(agent):
    record_the_sessions(agent)
    counted = stats_json(agent)
    location = store.locate(agent)
    path = effectiveness.index_path(location.project_dir, location.key)
    path.write_text("{not json")
    shown = invoke("learnings", str(agent))
    assert shown.stderr == "the effectiveness index of blog.agentuse could not be read: recounted it from the session logs (7 run(s))\n"
    assert stats_json(agent) == counted
    path.write_text('{"version": 1, "agent": "blog.agentuse", "sessions": {}}')  # the index before running totals
    assert "is from an older version: recounted" in invoke("doctor", str(agent)).stderr
    path.write_text("{not json")  # a run meeting it rebuilds it too, and goes on
    Run(agent, "01K8ZEFF000000000000000008", ["aaaa0001"], approval=False).end("completed")
    assert stats_json(agent)["runs"] == 8 and stats_json(agent, "--rebuild")["runs"] == 8


@pytest.fixture
def blog(tmp_path):
    return copy_example(tmp_path / "blog")


def test_real_runs_update_the_index_one_session_at_a_time(blog, monkeypatch):
    read: list[str] = []
    real_read = counting.read_events
    monkeypatch.setattr(counting, "read_events", lambda path: (read.append(path.stem), real_read(path))[1])
    replay = f"replay:{EXAMPLE_SESSION}"
    location = store.locate(blog)
    path = effectiveness.index_path(location.project_dir, location.key)

    def sid(output: str) -> str:
        return next(line.split()[1] for line in output.splitlines() if line.startswith("session "))

    first = sid(invoke("run", str(blog), "--model", replay).stdout)
    # The agent's first run finds no index: it is built from the logs (this one is all there is), then the
    # session is recounted as it stops at the gate.
    assert read == [first, first, first]
    assert json.loads(path.read_text())["open"][first]["outcome"] == "pending"
    read.clear()
    invoke("sessions", "resume", first, "--approve")  # its tool-errors channel captures the write_file recovery
    assert read == [first]  # the resumed session is counted once more: closed now, folded into the totals
    index = json.loads(path.read_text())
    assert (index["open"], index["runs"], index["approved"]) == ({}, 1, 1)
    rule_id = stats_json(blog)["rules"][0]["id"]
    read.clear()
    second = sid(invoke("run", str(blog), "--model", replay).stdout)
    assert read == [second, second]  # a second run reads only its own log
    index = json.loads(path.read_text())
    assert set(index["open"]) == {second} and index["open"][second]["rounds"][0]["injected"] == [rule_id]
    # the replayed run repeats the write_file failure the rule is about, with the rule in force
    found = stats_json(blog)
    assert found["not_landing"] == [rule_id] and found["rules"][0]["recurred"] == 1
    assert found["rules"][0]["runs"] == 1 and found["rules"][0]["pending"] == 1
    read.clear()
    assert stats_json(blog, "--rebuild") == found
    assert sorted(read) == sorted([first, second])


def test_the_table_sorts_and_a_wrong_sort_is_one_line(agent):
    record_the_sessions(agent)
    ids = lambda *sort: [r["id"] for r in stats_json(agent, *sort)["rules"]]  # noqa: E731
    assert ids() == ["aaaa0001", "bbbb0002", "cccc0003"]  # most runs first
    assert ids("--sort", "recurred")[0] == "bbbb0002"
    assert ids("--sort", "title") == ["cccc0003", "aaaa0001", "bbbb0002"]
    table = invoke("learnings", "stats", str(agent), "--sort", "title").stdout.splitlines()
    assert [line.split()[0] for line in table[1:4]] == ["cccc0003", "aaaa0001", "bbbb0002"]
    wrong = invoke("learnings", "stats", str(agent), "--sort", "speed", code=1)
    assert wrong.stderr == ("error: --sort takes one of runs, approved, commented, rejected, commented_about, recurred, "
                            "title, not 'speed'\n")


def test_doctor_names_the_rules_not_landing_and_the_rules_never_injected(agent):
    before = invoke("doctor", str(agent)).stdout
    assert "not landing" not in before and "never injected in" not in before  # no run counted: nothing to say
    record_the_sessions(agent)
    lines = [line.strip() for line in invoke("doctor", str(agent)).stdout.splitlines()]
    assert (f"1 rule(s) not landing: their failure recurred, or a reviewer commented on what they say, while they "
            f"were in force (bbbb0002); see agentuse learnings stats {agent}") in lines
    assert "1 rule(s) never injected since they were added: cccc0003 (7 counted run(s))" in lines


def test_a_rule_is_never_injected_only_in_the_runs_counted_since_it_was_added(agent):
    # One captured from the third session (its `sess:`), one a person added the day after the last run.
    location = store.locate(agent)
    doc = store.load(location)
    doc.learnings += [rule("eeee0005", "Name the author", sess="01K8ZEFF000000000000000003", date_="2025-11-01"),
                      rule("dddd0004", "Quote the title", src=Source.manual, date_="2025-11-02")]
    store.save(location, doc)
    record_the_sessions(agent)
    found = stats_json(agent)
    assert sorted(found["never_injected"]) == ["cccc0003", "eeee0005"]  # not dddd0004: no run came after it
    by_id = {r["id"]: r for r in found["rules"]}
    assert [by_id[i]["since_added"] for i in ("cccc0003", "eeee0005", "dddd0004")] == [7, 4, 0]
    lines = [line.strip() for line in invoke("doctor", str(agent)).stdout.splitlines()]
    assert ("2 rule(s) never injected since they were added: eeee0005 (4 counted run(s)), cccc0003 (7 counted "
            "run(s))") in lines


def test_the_dashboard_rules_table_carries_the_same_figures(agent):
    from agentuse.flows.artifacts import rules_table

    record_the_sessions(agent)
    rows = {row["id"]: row for row in rules_table(str(agent))}
    assert (rows["aaaa0001"]["runs in force"], rows["aaaa0001"]["approved clean"], rows["aaaa0001"]["commented"],
            rows["aaaa0001"]["recurred"]) == (7, 1, 2, "")
    assert (rows["bbbb0002"]["runs in force"], rows["bbbb0002"]["recurred"]) == (6, 2)


def test_approval_rates_with_and_without_each_rule_where_there_are_enough_runs(agent):
    # Reviewed runs (a gate answered): 1 approved clean, 2 commented (one through a revision), 2 rejected.
    record_the_sessions(agent)
    found = stats_json(agent)
    assert (found["reviewed"], found["approval_rate"]) == (5, 0.2)
    rates = {r["id"]: (r["approval_rate_with"], r["approval_rate_without"]) for r in found["rules"]}
    # aaaa0001 was in force on every reviewed run: nothing to compare it with. bbbb0002 was missing from one
    # (fewer than 3: no rate). cccc0003 was never in force: only the rate without it.
    assert rates == {"aaaa0001": (0.2, None), "bbbb0002": (0.25, None), "cccc0003": (None, 0.2)}
    table = invoke("learnings", "stats", str(agent)).stdout
    assert "approval rate: 20% of 5 reviewed run(s) approved without a comment" in table


def test_a_tool_errors_rule_whose_failure_came_back_waits_to_become_permanent(agent):
    # Issue 18: stricter than the spec's graduation rule. bbbb0002 is in force for 10+ runs (eligible by the
    # spec), but its failure came back in the latest run it was in force for: the tidy-up holds it back.
    from agentuse.core.helper.offline import OfflineHelper
    from agentuse.flows.tidy import run_tidy

    location = store.locate(agent)
    doc = store.load(location)
    ih = current_ih(agent)
    doc.learnings = [r.model_copy(update={"injected": 12, "ih": ih}) for r in doc.learnings]
    store.save(location, doc)
    b = "bbbb0002"
    Run(agent, "01K8ZEFF000000000000000011", [b]).call("upload").gate().decide("approve")
    Run(agent, "01K8ZEFF000000000000000012", [b]).call("upload", "files.length remained 0").gate().decide("approve")
    held = run_tidy(agent, helper=OfflineHelper())
    assert b not in {r.id for r in store.load(location).learnings if r.state.value == "graduated"}
    assert any("wait to become permanent: their failure came back" in n for n in held.notes), held.notes
    assert held.counts.permanent == 2  # the other two graduated as usual

    Run(agent, "01K8ZEFF000000000000000013", [b]).call("upload").gate().decide("approve")  # the recovery holds
    confirmed = run_tidy(agent, helper=OfflineHelper())
    assert confirmed.counts.permanent == 1
    assert b in {r.id for r in store.load(location).learnings if r.state.value == "graduated"}


def test_a_rule_older_than_the_recent_window_counts_the_window_as_a_lower_bound():
    from agentuse.core.session_ids import first_id_at

    start = 1_760_000_000  # 2025-10-09, after the rule's day
    ids = [first_id_at(start + n)[:-1] + "1" for n in range(effectiveness.RECENT_RUNS + 20)]
    index = effectiveness.Index(agent="blog.agentuse")
    for session_id in ids:
        effectiveness.fold(index, session_id, effectiveness.SessionDigest(outcome="no_gate"))
    old = rule("aaaa0001", "Save posts under posts/", date_="2025-10-01")
    newer = rule("bbbb0002", "Link the sources", sess=ids[-10])  # captured in the tenth run from the end
    found = effectiveness.figures([old, newer], index)
    assert (found["aaaa0001"].since_added, found["aaaa0001"].since_added_all) == (effectiveness.RECENT_RUNS, False)
    assert (found["bbbb0002"].since_added, found["bbbb0002"].since_added_all) == (9, True)
