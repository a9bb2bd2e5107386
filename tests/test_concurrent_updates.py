"""No concurrent update is lost (issue 12): counts and rules recorded while a tidy-up or `learnings --edit`
is open are carried into the result, or the commit refuses with the conflict named."""

from __future__ import annotations

import sys
from datetime import date

import pytest
from fakes.scripted_helper import ScriptedHelper
from tidy_scenario import BLOG_SEED, MERGED, ROLES, Scenario, install
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import snapshots, store
from agentuse.core.helper import protocol as p
from agentuse.core.inject import credit_approval, record_injection
from agentuse.core.tidy_commit import ConcurrentEditError
from agentuse.flows.remember import run_remember
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)
runner = CliRunner()


@pytest.fixture
def agent(tmp_path):
    return install(tmp_path, store.locate)


def repeat(agent, rule) -> None:
    """A person says the rule again, through the remember path (`learnings add`) with a scripted model."""
    helper = ScriptedHelper(ground=[p.GroundAnswer(rule=p.Draft(title=rule.title, body=rule.body))],
                          reconcile=[p.ReconcileAnswer(action="repeat", replaces=[rule.id])],
                          vet=[lambda r: p.VetAnswer(verdicts=[p.VetVerdict(id=c.id, verdict="pass")
                                                               for c in r.candidates])] * 3,
                          audit=[p.AuditAnswer(missing=[])] * 3)
    run_remember(agent=str(agent), text=rule.text, helper=helper, today=TODAY)


def _by_id(agent):
    return {r.id: r for r in store.load(store.locate(agent)).learnings}


def _merged(agent, cluster: str):
    [rule] = [r for r in store.load(store.locate(agent)).learnings if r.title == MERGED[cluster].title]
    return rule


def test_counts_recorded_on_a_rule_the_tidy_merges_away_land_on_the_merged_rule(agent, tmp_path):
    # The same tidy-up with nobody else around: what the merged rule carries on its own.
    alone = install(tmp_path / "alone", store.locate)
    run_tidy(alone, helper=Scenario().helper(), today=TODAY, seed=3)

    location = store.locate(agent)
    scenario = Scenario()
    touched: list[str] = []

    def rewrite_while_others_work(request):
        source = next((r.id for r in request.originals if r.id in ROLES.values()), None)
        if request.kind == "merge" and not touched and source is not None:
            touched.append(source)  # while the tidy-up writes its merge, a run finishes and a person repeats it
            record_injection(location, [source])
            credit_approval(location, [source])
            repeat(agent, _by_id(agent)[source])
        return scenario.rewrite(request)

    run_tidy(agent, helper=scenario.helper(rewrite_group=rewrite_while_others_work), today=TODAY, seed=3)
    [source] = touched
    cluster = scenario.cluster_of[source]
    carried, baseline = _merged(agent, cluster), _merged(alone, cluster)
    assert source not in _by_id(agent)  # merged away, as planned
    assert carried.re == baseline.re + 1  # the person's repeat is on the rule that now says it
    assert carried.injected >= baseline.injected + 1 and carried.ok >= baseline.ok + 1
    # The archive keeps the merged-away rule as it was when it left, counts included.
    [gone] = [r for r in store.load_archive(location).learnings if r.id == source]
    assert gone.re >= 1


def test_a_repeat_of_a_rule_the_tidy_retires_refuses_the_commit_naming_it(agent):
    location = store.locate(agent)
    scenario = Scenario()
    retired = _by_id(agent)[ROLES["R1"]]  # the scenario retires R1: S1 says it fully
    done = False

    def plan_while_a_person_repeats(request):
        nonlocal done
        if not done:
            done = True
            repeat(agent, retired)
        return scenario.plan(request)

    store_during = None
    with pytest.raises(ConcurrentEditError) as refused:
        try:
            run_tidy(agent, helper=scenario.helper(plan_groups=plan_while_a_person_repeats), today=TODAY, seed=3)
        finally:
            store_during = location.store_path.read_bytes()
    assert f'"{retired.title}" repeated by a person meanwhile' in str(refused.value)
    assert "Run the tidy-up again" in str(refused.value)
    assert _by_id(agent)[retired.id].re == retired.re + 1  # the repeat stands; nothing was written over it
    assert location.store_path.read_bytes() == store_during and snapshots.listing(location) == []


def test_a_rule_added_during_the_tidy_under_an_id_it_also_drew_is_kept(agent):
    """Ids are drawn at random: a capture's new rule can collide with a merge product's id; both stay."""
    location = store.locate(agent)
    scenario = Scenario(max_merge=10)  # every cluster in one move: the first product keeps the first id drawn
    added = False

    def rewrite_and_capture(request):
        nonlocal added
        answer = scenario.rewrite(request)
        if not added:
            added = True
            with store.transaction(location) as doc:  # a capture writes a rule meanwhile
                doc.learnings.append(doc.learnings[-1].model_copy(update={
                    "id": "c0111de5", "title": "Added during the tidy-up", "body": "Meanwhile."}))
        return answer

    from agentuse.core import tidy_state

    real = tidy_state.TidyState.new_id
    drawn = iter(["c0111de5"])
    tidy_state.TidyState.new_id = lambda self: next(drawn, None) or real(self)
    try:
        run_tidy(agent, helper=scenario.helper(rewrite_group=rewrite_and_capture), today=TODAY, seed=3)
    finally:
        tidy_state.TidyState.new_id = real
    titles = {r.id: r.title for r in store.load(location).learnings}
    assert titles.get("c0111de5") in {t for t in (d.title for d in MERGED.values())}  # the product kept its id
    assert "Added during the tidy-up" in titles.values()


# --- learnings --edit ---------------------------------------------------------------------------------------


def _editor(tmp_path, monkeypatch, body: str) -> None:
    script = tmp_path / "editor.py"
    script.write_text("import subprocess, sys\npath = sys.argv[1]\n" + body)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)


def _cli(*args):
    return [sys.executable, "-m", "agentuse", *map(str, args)]




@pytest.fixture
def seeded(tmp_path):
    return install(tmp_path / "proj", store.locate, seed=BLOG_SEED)


# The "editor": reads the file when it opens, lets the world move on (`meanwhile`), then saves its buffer
# with one edit, as a real editor does: a write of what it loaded, whatever happened to the file since.
EDITOR = """import subprocess, sys
path = sys.argv[1]
buffer = open(path, encoding="utf-8").read()
{meanwhile}
open(path, "w", encoding="utf-8").write(buffer.replace({old!r}, {new!r}))
"""
AGENTUSE = str(__import__("pathlib").Path(sys.executable).with_name("agentuse"))


def edit(tmp_path, monkeypatch, agent, *, meanwhile: str, old: str, new: str):
    script = tmp_path / "editor.py"
    script.write_text(EDITOR.format(meanwhile=meanwhile, old=old, new=new))
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    return runner.invoke(app, ["learnings", str(agent), "--edit"])


def test_a_rule_added_through_the_cli_while_the_editor_is_open_is_kept(seeded, tmp_path, monkeypatch):
    add = [AGENTUSE, "learnings", "add", str(seeded), "Name every post file after its slug."]
    result = edit(tmp_path, monkeypatch, seeded, meanwhile=f"subprocess.run({add!r}, check=True)",
                  old="### [warning] Keep intros factual", new="### [warning] Keep intros factual and short")
    assert result.exit_code == 0, result.output
    assert "1 rule(s) added meanwhile kept" in result.output
    titles = [r.title for r in store.load(store.locate(seeded)).learnings]
    assert "Keep intros factual and short" in titles  # the person's edit
    assert any("slug" in t for t in titles)  # the rule added while the editor was open
    assert not list((store.locate(seeded).project_dir / "edits").iterdir())  # the copy is gone once merged


def test_counts_recorded_while_the_editor_is_open_land_on_the_edited_rule(seeded, tmp_path, monkeypatch):
    location = store.locate(seeded)
    bump = ("from pathlib import Path; from agentuse.core import store, inject; "
            f"inject.record_injection(store.locate(Path({str(seeded)!r})), ['a1b2c3d4'])")
    result = edit(tmp_path, monkeypatch, seeded, meanwhile=f"subprocess.run([sys.executable, '-c', {bump!r}], check=True)",
                  old="### [warning] Keep intros factual", new="### [warning] Keep intros factual and short")
    assert result.exit_code == 0, result.output
    rule = {r.id: r for r in store.load(location).learnings}["a1b2c3d4"]
    assert rule.title == "Keep intros factual and short" and rule.injected == 32  # 31 + the run meanwhile


def test_an_edit_over_a_rule_changed_meanwhile_is_refused_and_kept_aside(seeded, tmp_path, monkeypatch):
    location = store.locate(seeded)
    change = (f"p = {str(location.store_path)!r}; t = open(p).read(); "
              "open(p, 'w').write(t.replace('keep intros factual rather', 'keep intros plain rather'))")
    result = edit(tmp_path, monkeypatch, seeded, meanwhile=change,
                  old="### [warning] Keep intros factual", new="### [warning] Keep intros short")
    assert result.exit_code == 1
    assert '"Keep intros factual" edited meanwhile' in result.stderr and "nothing was written" in result.stderr
    assert "keep intros plain rather" in location.store_path.read_text()  # the other change stands
    kept = result.stderr.split("Your edit is kept at ")[1].split(":")[0]
    assert "### [warning] Keep intros short" in open(kept, encoding="utf-8").read()


def test_an_edit_that_does_not_parse_is_refused_with_file_and_line_and_kept_aside(seeded, tmp_path, monkeypatch):
    location = store.locate(seeded)
    before = location.store_path.read_bytes()
    result = edit(tmp_path, monkeypatch, seeded, meanwhile="",
                  old="### [warning] Keep intros factual", new="### [bogus] Keep intros factual")
    assert result.exit_code == 1
    assert location.store_path.read_bytes() == before
    kept = result.stderr.split("Your edit is kept at ")[1].split(":")[0]
    assert f"{kept}:4:" in result.stderr  # file:line of the person's text
    assert "[bogus]" in open(kept, encoding="utf-8").read()
