"""Rules removed through `agentuse learnings <agent> --edit` go to the archive, as `learnings discard` puts
them there, and the command says so (spec: nothing is deleted; "A retired rule is removed, and re-asserting
it later simply adds it back"). An editor that saves an empty buffer archives every rule and says so."""

from __future__ import annotations

import sys

import pytest
from tidy_scenario import BLOG_SEED, install
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.store_edit import EDIT_REASON

runner = CliRunner()

# Drops the entries whose heading names one of the titles given (a person deleting them in the editor).
DROP = """import sys
path, titles = sys.argv[-1], {titles!r}
entries = open(path, encoding="utf-8").read().split("\\n### ")
kept = [e for e in entries if not any(e.split("\\n", 1)[0].endswith("] " + t) for t in titles)]
open(path, "w", encoding="utf-8").write("\\n### ".join(kept))
"""


@pytest.fixture
def seeded(tmp_path):
    return install(tmp_path / "proj", store.locate, seed=BLOG_SEED)


def edit(monkeypatch, agent, editor: str):
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.delenv("VISUAL", raising=False)
    return runner.invoke(app, ["learnings", str(agent), "--edit"])


def dropping(tmp_path, *titles: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(DROP.format(titles=list(titles)))
    return f"{sys.executable} {script}"


def archived(location) -> dict[str, object]:
    return {r.id: r for r in store.load_archive(location).learnings} if location.archive_path.exists() else {}


def test_a_rule_deleted_in_the_editor_is_archived_and_the_command_says_how_to_get_it_back(seeded, tmp_path,
                                                                                           monkeypatch):
    location = store.locate(seeded)
    rules = {r.title: r for r in store.load(location).learnings}
    gone = rules["Keep intros factual"]

    result = edit(monkeypatch, seeded, dropping(tmp_path, gone.title))
    assert result.exit_code == 0, result.output
    assert gone.id not in {r.id for r in store.load(location).learnings}
    [kept] = archived(location).values()
    assert kept.model_copy(update={"state": gone.state, "why": gone.why}) == gone  # counts and all
    assert kept.why == f"retired: {EDIT_REASON}"
    assert result.stdout.splitlines() == [
        f"Archived 1 rule removed in the editor, not deleted: {location.archive_path}",
        f'  "Keep intros factual" (id:{gone.id})',
        f"Put one back with: agentuse learnings restore {seeded} <id>",
    ]


def test_an_editor_that_saves_an_empty_buffer_archives_every_rule_and_says_so(seeded, monkeypatch):
    location = store.locate(seeded)
    rules = store.load(location).learnings
    assert len(rules) > 1

    result = edit(monkeypatch, seeded, "truncate -s0")
    assert result.exit_code == 0, result.output
    assert store.load(location).learnings == []
    assert set(archived(location)) == {r.id for r in rules}  # quarantined and manual rules too
    lines = result.stdout.splitlines()
    assert lines[0] == (f"The edited file was empty: all {len(rules)} rules were archived, not deleted: "
                        f"{location.archive_path}")
    assert lines[1:-1] == [f'  "{r.title}" (id:{r.id})' for r in rules]
    assert lines[-1] == f"Put one back with: agentuse learnings restore {seeded} <id>"


def test_a_rule_deleted_while_the_store_changed_meanwhile_is_archived_too(seeded, tmp_path, monkeypatch):
    """The merge path: a run counts on another rule while the editor is open."""
    location = store.locate(seeded)
    gone = {r.title: r for r in store.load(location).learnings}["Structure with time estimates"]
    script = tmp_path / "editor.py"
    bump = ("from pathlib import Path; from agentuse.core import store, inject; "
            f"inject.record_injection(store.locate(Path({str(seeded)!r})), ['a1b2c3d4'])")
    script.write_text("import subprocess, sys\n"
                      f"subprocess.run([sys.executable, '-c', {bump!r}], check=True)\n"
                      + DROP.format(titles=[gone.title]))
    result = edit(monkeypatch, seeded, f"{sys.executable} {script}")
    assert result.exit_code == 0, result.output
    assert "merged with what changed while the editor was open" in result.stdout
    assert f'  "{gone.title}" (id:{gone.id})' in result.stdout.splitlines()
    assert set(archived(location)) == {gone.id}
    assert {r.id: r for r in store.load(location).learnings}["a1b2c3d4"].injected == 32  # the run meanwhile


def test_an_edit_that_removes_nothing_archives_nothing(seeded, tmp_path, monkeypatch):
    script = tmp_path / "editor.py"
    script.write_text("import sys\np = sys.argv[1]\nt = open(p).read()\n"
                      "open(p, 'w').write(t.replace('### [warning] Keep intros factual', "
                      "'### [warning] Keep intros plain'))\n")
    result = edit(monkeypatch, seeded, f"{sys.executable} {script}")
    assert result.exit_code == 0 and result.stdout == ""
    assert not store.locate(seeded).archive_path.exists()


def test_an_edit_left_unparseable_keeps_every_rule_and_archives_nothing(seeded, tmp_path, monkeypatch):
    location = store.locate(seeded)
    before = location.store_path.read_bytes()
    script = tmp_path / "editor.py"
    script.write_text("import sys\nopen(sys.argv[1], 'w').write('### [bogus] x\\n')\n")
    result = edit(monkeypatch, seeded, f"{sys.executable} {script}")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "Nothing was written to" in result.stderr and "Your edit is kept at " in result.stderr
    assert location.store_path.read_bytes() == before and not location.archive_path.exists()


def test_a_store_that_did_not_parse_can_still_be_repaired_in_the_editor(seeded, tmp_path, monkeypatch):
    location = store.locate(seeded)
    good = location.store_path.read_text(encoding="utf-8")
    location.store_path.write_text(good.replace("### [warning]", "### [bogus]", 1), encoding="utf-8")
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\nopen(sys.argv[1], 'w', encoding='utf-8').write({good!r})\n")
    result = edit(monkeypatch, seeded, f"{sys.executable} {script}")
    assert result.exit_code == 0, result.output
    assert location.store_path.read_text(encoding="utf-8") == good


def test_an_archive_that_does_not_parse_refuses_the_edit_and_keeps_both(seeded, tmp_path, monkeypatch):
    location = store.locate(seeded)
    before = location.store_path.read_bytes()
    location.archive_path.parent.mkdir(parents=True, exist_ok=True)
    location.archive_path.write_text("# Learnings for blog-writer\n\n### [bogus] x\n", encoding="utf-8")
    result = edit(monkeypatch, seeded, dropping(tmp_path, "Keep intros factual"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{location.archive_path}:3:" in result.stderr and "could not be archived there" in result.stderr
    assert location.store_path.read_bytes() == before
    kept = result.stderr.split("Your edit is kept at ")[1].split(":")[0]
    assert "Keep intros factual" not in open(kept, encoding="utf-8").read()
