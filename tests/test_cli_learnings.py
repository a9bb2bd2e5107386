"""`agentuse learnings <agent-file>` and `agentuse doctor` through the CLI (spec: Seeing what capture is
doing, Quarantine, Storage, When a correction does not fit)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.contract import instruction_hash
from agentuse.core.store_format import StoreDoc, render
from agentuse.core.learning import Learning

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
runner = CliRunner()


@pytest.fixture
def project(tmp_path) -> Path:
    shutil.copy(EXAMPLES / "blog-writer.agentuse", tmp_path / "blog-writer.agentuse")
    return tmp_path


@pytest.fixture
def seeded(project) -> Path:
    agent = project / "blog-writer.agentuse"
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "seeds" / "blog-writer.learnings.md", location.store_path)
    return agent


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def test_path_prints_the_store_under_the_state_dir(project, data_dir):
    result = invoke("learnings", project / "blog-writer.agentuse", "--path")
    assert result.exit_code == 0
    path = Path(result.stdout.strip())
    assert path.is_relative_to(data_dir / "project")
    assert path.name == "blog-writer.learnings.md"


def test_list_groups_by_status_as_the_spec_shows(seeded):
    out = invoke("learnings", seeded).stdout
    assert out.startswith("Applied (4 of 5)\n")
    assert "  applied  [warning] Keep intros factual\n" in out
    assert "src:approval · injected:31 · ch:corrections · approved:4 · ready to make permanent" in out
    assert "Stale — instructions changed, awaiting re-vet (1)\n  dormant  [tip] Cite the primary source" in out
    assert "Quarantined (1)\n  quarantined  [tip] Skip the call-to-action on short posts" in out
    assert '    why: contradicts the contract: "End with a clear call-to-action"' in out
    assert "Graduated" in out and "Cite sources before publishing" in out


def test_json_reports_counts_and_every_entry_with_computed_flags(seeded):
    report = json.loads(invoke("learnings", seeded, "--json").stdout)
    assert {k: report[k] for k in ("cap", "active", "injected", "dormant", "stale", "quarantined")} == {
        "cap": 15, "active": 5, "injected": 4, "dormant": 1, "stale": 1, "quarantined": 1,
    }
    assert report["file"] == str(store.locate(seeded).store_path)
    assert len(report["entries"]) == 7
    stale = [e for e in report["entries"] if e["stale"]]
    assert [e["record"]["id"] for e in stale] == ["e5f6a7b8"]
    assert stale[0]["state"] == "dormant" and stale[0]["injected"] is False
    tool = next(e for e in report["entries"] if e["record"]["ch"] == "tool-errors")
    assert tool["record"]["sig"] == "parent folder does not exist: #" and tool["injected"] is True


def test_doctor_prints_the_learning_lines(seeded):
    out = invoke("doctor", seeded).stdout
    assert "learned guidelines: 4 of 5 applied, ~" in out and "tokens/model request" in out
    assert ("1 learnings are stale: the instructions changed since they were vetted. They are held out of "
            "injection until the next capture or tidy re-vets them.") in out
    assert "by channel: corrections:3, custom:3, tool-errors:1" in out
    assert "1 learnings quarantined (failed the vet, never injected):" in out
    assert ('[tip] Skip the call-to-action on short posts — contradicts the contract: '
            '"End with a clear call-to-action"') in out
    assert f"learnings file: {store.locate(seeded).store_path}" in out


def test_legacy_entries_count_as_legacy_channel(project):
    agent = project / "blog-writer.agentuse"
    location = store.locate(agent)
    doc = StoreDoc(name="blog-writer", agent="blog-writer.agentuse",
                   learnings=[Learning(id="0a0b0c0d", title="Old rule", date="2025-01-01")])
    store.save(location, doc)
    assert "by channel: legacy:1" in invoke("doctor", agent).stdout


def test_corrections_outside_the_cap_are_reported_with_the_fold_advice(project):
    agent = project / "blog-writer.agentuse"
    text = agent.read_text().replace("max: 15", "max: 2")
    agent.write_text(text)
    ih = instruction_hash(text)
    rules = [Learning(id=f"0000000{i}", title=f"Correction {i}", date=f"2026-01-0{i + 1}", src="manual",
                      ch="corrections", ih=ih) for i in range(3)]
    store.save(store.locate(agent), StoreDoc(name="blog-writer", agent="blog-writer.agentuse", learnings=rules))
    out = invoke("doctor", agent).stdout
    assert "learned guidelines: 2 of 3 applied" in out
    assert "1 correction(s) sit outside this agent's 2-rule limit and do NOT reach it -" in out
    assert f"Fold the set down: agentuse learnings tidy {agent}" in out
    listing = invoke("learnings", agent).stdout
    assert "Outside the cap" in listing and "Correction 0" in listing


def test_auto_rules_outside_the_cap_are_promised_retirement_only_when_they_can_be_retired(project):
    """A drain or a tidy-up retires an auto rule past its 14-day grace that nobody repeated; a newer one, or
    a repeated one, stays outside the cap, and doctor says so instead of promising what will not happen."""
    from datetime import date, timedelta

    agent = project / "blog-writer.agentuse"
    text = agent.read_text().replace("max: 15", "max: 1")
    agent.write_text(text)
    ih = instruction_hash(text)
    new = (date.today() - timedelta(days=3)).isoformat()
    rules = [Learning(id="m0000001", title="Keep it", date="2026-01-01", src="manual", ch="corrections", ih=ih),
             Learning(id="a0000001", title="Old auto", date="2026-01-02", src="auto", ch="custom", ih=ih),
             Learning(id="a0000002", title="New auto", date=new, src="auto", ch="custom", ih=ih),
             Learning(id="a0000003", title="Repeated auto", date="2026-01-03", src="auto", ch="custom", ih=ih, re=1)]
    store.save(store.locate(agent), StoreDoc(name="blog-writer", agent="blog-writer.agentuse", learnings=rules))
    out = invoke("doctor", agent).stdout
    assert ("1 auto-extracted rule(s) sit outside the 1-rule limit and are never injected; "
            "the next capture or tidy retires them.") in out
    assert ("2 auto-extracted rule(s) sit outside the 1-rule limit and are never injected, and nothing retires "
            "them yet: a new learning gets 14 days to prove itself, and a repeated one is rewritten, "
            "never retired.") in out
    entries = {e["record"]["id"]: e for e in json.loads(invoke("learnings", agent, "--json").stdout)["entries"]}
    assert [entries[i]["retirable"] for i in ("a0000001", "a0000002", "a0000003")] == [True, False, False]


def test_stranded_learnings_are_noticed_by_existence_only(seeded):
    legacy = seeded.with_name("blog-writer.agentuse.learnings.md")
    legacy.write_text("this is not even a learnings file")
    out = invoke("doctor", seeded).stdout
    assert "learnings found at the old location for blog-writer.agentuse" in out
    assert "  blog-writer.agentuse.learnings.md" in out
    assert "No longer read. Move them:  agentuse learnings migrate --all" in out
    assert "Keep intros factual" in invoke("learnings", seeded).stdout  # the old file changed nothing


def test_unparseable_store_is_an_error_naming_file_and_line_and_is_not_rewritten(seeded):
    path = store.locate(seeded).store_path
    broken = path.read_text().replace("### [warning]", "### [nonsense]")
    path.write_text(broken)
    result = runner.invoke(app, ["learnings", str(seeded)])
    assert result.exit_code == 1
    assert str(path) in result.stderr and ":4:" in result.stderr
    assert path.read_text() == broken


def test_criteria_is_a_hard_error_in_list_and_doctor(project):
    agent = project / "old.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-sonnet-5\nlearning:\n  criteria: keep it short\n---\n# Old\n")
    for command in (["learnings", str(agent)], ["doctor", str(agent)]):
        result = runner.invoke(app, command)
        assert result.exit_code == 1
        assert '"criteria" was removed' in result.stderr and "capture: { custom" in result.stderr


def test_learning_true_notice_is_echoed_by_doctor(project):
    agent = project / "quick.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-sonnet-5\napproval: true\nlearning: true\n---\n# Quick\n")
    out = invoke("doctor", agent).stdout
    assert "notice:" in out and "capture" in out


def test_edit_opens_editor_and_refuses_to_hide_a_broken_result(seeded, tmp_path, monkeypatch):
    script = tmp_path / "editor.py"
    script.write_text("import sys\np = sys.argv[1]\nopen(p, 'a').write('### [bogus] x\\n')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    result = runner.invoke(app, ["learnings", str(seeded), "--edit"])
    assert result.exit_code == 1 and "bogus" in result.stderr


def test_edit_creates_an_empty_store_to_open(project, tmp_path, monkeypatch):
    agent = project / "blog-writer.agentuse"
    seen = tmp_path / "seen.txt"
    script = tmp_path / "editor.py"
    script.write_text(f"import sys, shutil\nshutil.copy(sys.argv[1], {str(seen)!r})\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    assert invoke("learnings", agent, "--edit").exit_code == 0
    assert seen.read_text().startswith("# Learnings for blog-writer\n<!-- agent: blog-writer.agentuse -->")


def test_seed_store_round_trips(seeded):
    path = store.locate(seeded).store_path
    assert render(store.load(store.locate(seeded))) == path.read_text()


def test_missing_agent_file_is_one_clear_error(tmp_path):
    result = runner.invoke(app, ["doctor", str(tmp_path / "nope.agentuse")])
    assert result.exit_code == 1 and "no such agent file" in result.stderr


def test_empty_list_still_names_learnings_stranded_at_the_old_location(project):
    # Spec, Moving learnings from before v0.17.0: an agent whose learnings are all at the old location is
    # exactly the one that lists nothing; the listing must not look healthy while they sit there unread.
    agent = project / "blog-writer.agentuse"
    agent.with_name("blog-writer.agentuse.learnings.md").write_text("# old\n")
    out = invoke("learnings", agent).stdout
    assert out.startswith("No learnings yet for blog-writer.agentuse.\n")
    assert "learnings found at the old location for blog-writer.agentuse\n" in out
    assert "  blog-writer.agentuse.learnings.md\n" in out
    assert "No longer read. Move them:  agentuse learnings migrate --all" in out


def test_unbalanced_learned_block_markers_name_the_agent_file(project):
    agent = project / "marker.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-sonnet-5\nlearning: true\n---\n# X\n<!-- agentuse:learned -->\n- [tip] a\n")
    for command in (["learnings", str(agent)], ["doctor", str(agent)]):
        result = runner.invoke(app, command)
        assert result.exit_code == 1
        assert f"{agent}:6: learned block markers are unbalanced" in result.stderr
        assert "<agent file>" not in result.stderr



@pytest.mark.parametrize("flag", ["--path", "--edit"])
def test_path_and_edit_refuse_an_agent_file_that_does_not_exist(project, data_dir, monkeypatch, flag):
    # A typo must not print (or, with --edit, create) a learnings file for an agent that is not there.
    monkeypatch.setenv("EDITOR", "true")
    result = runner.invoke(app, ["learnings", str(project / "blog-writr.agentuse"), flag])
    assert result.exit_code == 1
    assert "blog-writr.agentuse: no such agent file" in result.stderr
    assert result.stdout == ""
    assert not list(data_dir.rglob("*.learnings.md"))


def test_status_uses_the_same_instruction_hash_as_runs(project):
    # A body may itself open with a markdown `---` block; the status must not strip it a second time.
    from agentuse.core.agent_file import load_agent
    from agentuse.core.contract import agent_hash

    agent = project / "ruled.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-sonnet-5\nlearning: {capture: true, apply: true}\n---\n"
                     "---\nNote: be careful\n---\n# Ruled\n")
    ih = agent_hash(load_agent(agent))
    store.save(store.locate(agent), StoreDoc(name="ruled", agent="ruled.agentuse", learnings=[
        Learning(id="0a0b0c0d", title="A vetted rule", date="2026-01-01", src="manual", ih=ih)]))
    report = json.loads(invoke("learnings", agent, "--json").stdout)
    assert report["stale"] == 0 and report["injected"] == 1


def test_usage_counts_every_call_from_parallel_threads():
    from concurrent.futures import ThreadPoolExecutor

    from agentuse.core.helper.protocol import HelperUsage

    usage = HelperUsage()
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda _: usage.add(1, 2), range(4000)))
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (4000, 4000, 8000)


def test_conflicting_modes_are_one_clear_error(seeded):
    result = runner.invoke(app, ["learnings", str(seeded), "--path", "--json"])
    assert result.exit_code == 1 and "pass one of them" in result.stderr and result.stdout == ""


@pytest.mark.parametrize("config", ["", "learning:\n  apply: false\n"])
def test_held_back_rules_say_learning_apply_is_not_enabled_with_or_without_a_learning_key(tmp_path, config):
    """An agent with no learning key at all stores a Learn note but never applies it: the group must not
    claim an `apply: false` the file does not have (found by review)."""
    agent = tmp_path / "a.agentuse"
    agent.write_text(f"---\n{config}---\n# A\n\nWrite posts.\n")
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True, exist_ok=True)
    rule = Learning(id="a1b2c3d4", title="Keep intros factual", date="2026-11-01",
                    ih=instruction_hash(agent.read_text()))
    location.store_path.write_text(render(StoreDoc(name="a", learnings=[rule])))
    out = invoke("learnings", agent).output
    assert "Held back — learning.apply is not enabled, so they stay out of future prompts (1)" in out
    assert "apply: false" not in out
