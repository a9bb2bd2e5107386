"""Issue 12, item 7: `agentuse learnings discard <agent-file> <id>` moves any rule to the archive, and
`agentuse learnings restore <agent-file> <id>` puts the newest archived copy back, re-vetted against the
current instructions (active, or quarantined with the reason), through the cap, and out of the archive."""

from __future__ import annotations

import pytest
from capture_support import archived, current_ih, make_agent, rule, seed, stored
from fakes.scripted_helper import ScriptedHelper, permanent, verdicts
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.helper.factory import override_helper
from agentuse.core.helper.offline import OfflineHelper
from agentuse.core.learning import Channel, Source, State

runner = CliRunner()
PUBLISH = "Publish drafts without review"


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def manual(rule_id, title, **kw):
    return rule(rule_id, title, src=Source.manual, ch=Channel.corrections, **kw)


@pytest.fixture
def agent(tmp_path):
    path = make_agent(tmp_path / "p", "learning:\n  max: 3")
    ih = current_ih(path)
    seed(path, [manual("aaaa0001", "Cite the primary source for every statistic", ih=ih),
                rule("aaaa0002", "Keep titles under 60 characters", ih=ih),
                manual("aaaa0003", PUBLISH, ih=ih, state=State.quarantined,
                       why='contradicts the contract: "Never publish without an approval gate"'),
                rule("aaaa0004", "Use numbered lists for steps", ih=ih, state=State.graduated)])
    with override_helper(OfflineHelper()):
        yield path


# ---------------------------------------------------------------- discard


@pytest.mark.parametrize("rule_id", ["aaaa0001", "aaaa0003", "aaaa0004"], ids=["active", "quarantined", "graduated"])
def test_discard_moves_any_rule_to_the_archive_with_the_reason(agent, rule_id):
    before = {r.id: r for r in stored(agent)}
    result = invoke("learnings", "discard", agent, rule_id)
    assert result.exit_code == 0, result.output
    assert result.output == f'Discarded "{before[rule_id].title}" (archived, id:{rule_id}).\n'
    assert rule_id not in {r.id for r in stored(agent)} and len(stored(agent)) == 3
    [gone] = archived(agent)
    assert gone.id == rule_id and gone.state is State.retired and gone.why == "retired: discarded by hand"
    assert (gone.title, gone.src, gone.injected) == (before[rule_id].title, before[rule_id].src, 0)


def test_discard_takes_a_unique_prefix_and_refuses_an_unknown_or_ambiguous_id(agent):
    unknown = invoke("learnings", "discard", agent, "zzzz9999")
    assert unknown.exit_code == 1
    assert unknown.output.strip().splitlines() == [
        f"error: no learning with id 'zzzz9999' in {store.locate(agent).store_path}"]
    ambiguous = invoke("learnings", "discard", agent, "aaaa")
    assert ambiguous.exit_code == 1 and "ambiguous" in ambiguous.output and "aaaa0001" in ambiguous.output
    assert len(stored(agent)) == 4 and archived(agent) == []
    seed(agent, [*stored(agent), rule("cafe1234", "Add alt text to every image", ih=current_ih(agent))])
    assert invoke("learnings", "discard", agent, "cafe").exit_code == 0
    assert [r.id for r in archived(agent)] == ["cafe1234"]


def test_discard_of_a_missing_agent_file_is_one_error_line(tmp_path):
    result = invoke("learnings", "discard", tmp_path / "nope.agentuse", "aaaa0001")
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1


# ---------------------------------------------------------------- restore


def test_restore_re_vets_and_puts_the_rule_back_active_and_out_of_the_archive(agent):
    invoke("learnings", "discard", agent, "aaaa0002")
    invoke("learnings", "discard", agent, "aaaa0001")
    result = invoke("learnings", "restore", agent, "aaaa0001")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == ('Restored "Cite the primary source for every statistic" (id:aaaa0001) '
                                              "as active: it passes the vet against the current instructions.")
    back = {r.id: r for r in stored(agent)}["aaaa0001"]
    assert (back.state, back.why, back.ih, back.src) == (State.active, None, current_ih(agent), Source.manual)
    assert [r.id for r in archived(agent)] == ["aaaa0002"]  # only the restored entry left the archive


def test_restore_quarantines_a_rule_that_conflicts_with_the_current_instructions(agent):
    invoke("learnings", "discard", agent, "aaaa0003")
    # The offline evaluator's lexical comparison does not see this conflict; a model does.
    with override_helper(ScriptedHelper(vet=[lambda r: verdicts(
            r, ("Publish", "contradiction", "Never publish without an approval gate"))])) as helper:
        result = invoke("learnings", "restore", agent, "aaaa0003")
    [request] = helper.requests["vet"]
    assert request.trace == "" and "Never publish without an approval gate" in request.contract
    assert [r.id for r in request.rules_in_force] == ["aaaa0001", "aaaa0002"]  # the whole set in force
    assert result.exit_code == 0, result.output
    assert 'Restored "Publish drafts without review" (id:aaaa0003) but quarantined: contradicts the contract' \
        in result.output
    back = {r.id: r for r in stored(agent)}["aaaa0003"]
    assert back.state is State.quarantined and "Never publish without an approval gate" in back.why
    assert archived(agent) == []


def test_restore_of_the_newest_copy_when_an_id_was_archived_twice(agent):
    location = store.locate(agent)
    old = rule("aaaa0009", "Old wording of the rule", ih=current_ih(agent))
    store.archive(location, [old], reason="merged into aaaa0002")
    store.archive(location, [old.model_copy(update={"title": "New wording of the rule"})], reason="discarded by hand")
    assert invoke("learnings", "restore", agent, "aaaa0009").exit_code == 0
    assert {r.id: r.title for r in stored(agent)}["aaaa0009"] == "New wording of the rule"
    assert [(r.id, r.title) for r in archived(agent)] == [("aaaa0009", "Old wording of the rule")]


def test_a_failed_vet_restores_a_person_s_rule_unvetted_and_keeps_an_auto_rule_archived(agent):
    invoke("learnings", "discard", agent, "aaaa0001")
    invoke("learnings", "discard", agent, "aaaa0002")
    with override_helper(ScriptedHelper(vet=[permanent(), permanent()])):
        human = invoke("learnings", "restore", agent, "aaaa0001")
        auto = invoke("learnings", "restore", agent, "aaaa0002")
    assert human.exit_code == 0, human.output
    assert "as active, not vetted: the vet call failed" in human.output
    back = {r.id: r for r in stored(agent)}["aaaa0001"]
    assert back.state is State.active and back.ih is None  # unstamped: the next capture or tidy vets it
    assert auto.exit_code == 1
    assert "never put back unvetted. It stays in the archive." in auto.output
    assert [r.id for r in archived(agent)] == ["aaaa0002"] and "aaaa0002" not in {r.id for r in stored(agent)}


def test_restore_applies_the_cap_like_any_write(agent):
    ih = current_ih(agent)
    location = store.locate(agent)
    store.archive(location, [manual("bbbb0001", "Link every tool you mention", ih=ih),
                             rule("bbbb0002", "Bold the key takeaway", ih=ih)], reason="over the 3-rule cap (drained)")
    seed(agent, [manual("aaaa0001", "Cite the primary source for every statistic", ih=ih),
                 manual("aaaa0005", "Name the reader in the first line", ih=ih),
                 manual("aaaa0006", "End each post with one question", ih=ih)])
    with override_helper(ScriptedHelper(vet=[lambda r: verdicts(r), lambda r: verdicts(r)])):
        person = invoke("learnings", "restore", agent, "bbbb0001")
        auto = invoke("learnings", "restore", agent, "bbbb0002")
    assert person.exit_code == 0, person.output
    assert "It is kept outside the 3-rule cap (never injected)" in person.output
    assert auto.exit_code == 1 and "was not restored: the set is full" in auto.output
    assert [r.id for r in archived(agent)] == ["bbbb0002"]
    assert "bbbb0001" in {r.id for r in stored(agent)} and "bbbb0002" not in {r.id for r in stored(agent)}


def test_restore_of_an_unknown_id_is_one_error_line(agent):
    result = invoke("learnings", "restore", agent, "zzzz9999")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"error: no learning with id 'zzzz9999' in {store.locate(agent).archive_path}"]


def test_both_commands_are_in_the_help():
    out = invoke("learnings", "--help").output
    assert "discard" in out and "restore" in out


def test_discard_imports_no_heavy_module(agent):
    # A discard is a store edit: like the read-only commands, it must not pay for Prefect or a model SDK.
    import json
    import os
    import subprocess
    import sys

    from test_startup_imports import HEAVY, PROBE

    result = subprocess.run([sys.executable, "-c", PROBE, "learnings", "discard", str(agent), "aaaa0001"],
                            capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stderr.splitlines() if line.startswith("MODULES "))
    assert not set(json.loads(line.removeprefix("MODULES "))) & set(HEAVY)
    assert [r.id for r in archived(agent)] == ["aaaa0001"]


def test_restore_cuts_only_its_own_entry_out_of_the_archive(agent):
    location = store.locate(agent)
    ih = current_ih(agent)
    for rule_id, title in (("cccc0001", "First archived"), ("cccc0002", "Second archived"), ("cccc0003", "Third")):
        store.archive(location, [rule(rule_id, title, ih=ih)], reason="drained")
    before = location.archive_path.read_text()
    assert invoke("learnings", "restore", agent, "cccc0002").exit_code == 0
    after = location.archive_path.read_text()
    entries = before.split("\n\n")
    assert after == "\n\n".join(e for e in entries if "cccc0002" not in e)  # the others, byte for byte


# ---------------------------------------------------------------- a discard or restore cut short


def _cut_short(agent, rule_id):
    """What a discard killed between its two writes leaves (the archive written, the store not yet), and a
    restore killed between its two (the store written, the archived copy not yet taken out): the rule in
    both files."""
    location = store.locate(agent)
    store.archive(location, [r for r in stored(agent) if r.id == rule_id], reason="discarded by hand")
    return location


def test_a_discard_run_again_after_one_cut_short_archives_the_rule_once(agent):
    _cut_short(agent, "aaaa0001")
    assert invoke("learnings", "discard", agent, "aaaa0001").exit_code == 0
    assert "aaaa0001" not in {r.id for r in stored(agent)}
    assert [r.id for r in archived(agent)] == ["aaaa0001"]


def test_a_restore_run_again_after_one_cut_short_finishes_it(agent):
    _cut_short(agent, "aaaa0001")
    before = stored(agent)
    result = invoke("learnings", "restore", agent, "aaaa0001")
    assert result.exit_code == 0, result.output
    assert "already in the store" in result.output and "discard that rule first" not in result.output
    assert stored(agent) == before and archived(agent) == []


def test_a_restore_over_a_different_rule_with_that_id_still_refuses(agent):
    location = _cut_short(agent, "aaaa0001")
    with store.transaction(location) as doc:  # a tool-errors supersede keeps the id with new words
        doc.learnings = [r.model_copy(update={"body": "Reworded since."}) if r.id == "aaaa0001" else r
                         for r in doc.learnings]
    result = runner.invoke(app, ["learnings", "restore", str(agent), "aaaa0001"])
    assert result.exit_code == 1 and "is in the store already" in result.stderr
    assert [r.id for r in archived(agent)] == ["aaaa0001"]



def test_an_edit_made_again_after_one_cut_short_archives_the_rule_it_removed_once(agent, monkeypatch, tmp_path):
    """--edit archives the rules the person deleted, then writes the store. Killed in between, the person
    makes the edit again: the archive must not file the rule twice."""
    import sys

    from tidy_scenario import killed_writing

    location = store.locate(agent)
    editor = tmp_path / "drop.py"
    editor.write_text("import sys\np = sys.argv[1]\nparts = open(p).read().split('\\n### ')\n"
                      "open(p, 'w').write('\\n### '.join(x for x in parts if 'id:aaaa0002' not in x))\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    monkeypatch.delenv("VISUAL", raising=False)
    with killed_writing(location.store_path, monkeypatch):
        killed = runner.invoke(app, ["learnings", str(agent), "--edit"])
    assert killed.exit_code == 130  # click's exit for a KeyboardInterrupt: the process died there
    assert [r.id for r in archived(agent)] == ["aaaa0002"] and "aaaa0002" in {r.id for r in stored(agent)}
    assert invoke("learnings", agent, "--edit").exit_code == 0
    assert [r.id for r in archived(agent)] == ["aaaa0002"]
    assert "aaaa0002" not in {r.id for r in stored(agent)}
