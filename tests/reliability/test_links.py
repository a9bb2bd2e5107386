"""Symbolic links (issue 13): nothing in the state directory is written through a planted link, and a
symlinked agent file has one learnings file, whichever command asks (migrate, doctor, --path)."""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import snapshots, store
from agentuse.core.terminal_text import display_path
from agentuse.core.learning import Learning, Source
from agentuse.core.store_format import StoreDoc

OUTSIDE = "# Learnings for someone else\n"  # parses: only the link stands between a save and this file


def _rule(rule_id: str = "0000abcd") -> Learning:
    return Learning(id=rule_id, title="Keep intros short", body="Keep intros short.", date="2026-08-01",
                    src=Source.manual)


def _plant(link, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text(OUTSIDE)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    return outside


@pytest.mark.parametrize("where", ["store", "store lock", "archive", "archive lock"])
def test_a_link_planted_in_the_state_dir_is_refused_and_its_target_untouched(project, tmp_path, where):
    location = project.location
    path = {"store": location.store_path, "archive": location.archive_path}[where.split()[0]]
    link = path.with_name(path.name + ".lock") if where.endswith("lock") else path
    outside = _plant(link, tmp_path)
    doc = StoreDoc(name=location.name, agent=location.breadcrumb, learnings=[_rule()])
    with pytest.raises(store.LinkRefusedError, match="symbolic link"):
        if where.startswith("store"):
            store.save(location, doc)
        else:
            store.archive(location, [_rule()], reason="test")
    assert outside.read_text() == OUTSIDE
    assert link.is_symlink()  # refused, not replaced: a person should look at it


def test_a_link_planted_in_a_snapshot_folder_is_refused(project, tmp_path):
    location = project.location
    now = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
    folder = location.consolidations_dir / location.key.removesuffix(".agentuse")
    # The snapshot folder's name is random; plant the link where every snapshot writes: the pending marker.
    outside = _plant(store.pending_tidy_marker(location), tmp_path)
    with pytest.raises(store.LinkRefusedError):
        snapshots.take(location, agent_before=b"a", store_before=None, agent_after=b"b", store_after=b"",
                       block_after=[], now=now, complete=False)
    assert outside.read_text() == OUTSIDE
    assert folder.exists()


def test_the_cli_says_so_in_one_line(project, tmp_path):
    outside = _plant(project.location.store_path, tmp_path)
    result = CliRunner().invoke(app, ["learnings", "add", str(project.agent), "Keep intros short."])
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "symbolic link" in errors[0] and "Traceback" not in result.output
    assert outside.read_text() == OUTSIDE


def test_a_symlinked_agent_file_has_one_learnings_file(tmp_path):
    project, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    for folder in (project, elsewhere):
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
    real = elsewhere / "writer.agentuse"
    real.write_text("---\nmodel: anthropic:claude-test\nlearning: true\n---\n\nWrite posts.\n")
    link = project / "agents" / "writer.agentuse"
    link.parent.mkdir()
    link.symlink_to(real)
    legacy = link.with_name(link.name + ".learnings.md")  # before v0.17: beside the agent file as given
    legacy.write_text(f"# Learnings for writer\n\n### [tip] Keep intros short\n<!-- id:0000abcd | src:manual | "
                      f"2026-08-01 -->\nKeep intros short.\n")
    runner = CliRunner()
    migrated = runner.invoke(app, ["learnings", "migrate", str(link), "--keep-source"])
    assert migrated.exit_code == 0, migrated.output
    [copied] = [line for line in migrated.stdout.splitlines() if line.startswith("copied: ")]
    doctor = runner.invoke(app, ["doctor", str(link)])
    assert doctor.exit_code == 0, doctor.output
    [named] = [line.split("learnings file: ", 1)[1] for line in doctor.stdout.splitlines() if "learnings file: " in line]
    path = runner.invoke(app, ["learnings", str(link), "--path"]).stdout.strip()
    assert copied.endswith(f"→ {named}")
    assert display_path(path) == named
    assert "Keep intros short" in runner.invoke(app, ["learnings", str(link)]).stdout  # the copy is what they read
