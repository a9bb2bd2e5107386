"""`agentuse learnings migrate` (spec: Moving learnings from before v0.17.0)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SEED = (EXAMPLES / "seeds" / "blog-writer.learnings.md").read_text()
runner = CliRunner()


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)  # the project root is the git root
    (tmp_path / "agents" / "blog").mkdir(parents=True)
    for name in ("agents/blog/write.agentuse", "agents/edit.agentuse"):
        shutil.copy(EXAMPLES / "blog-writer.agentuse", tmp_path / name)
    (tmp_path / "agents/blog/write.agentuse.learnings.md").write_text(SEED)
    (tmp_path / "agents/edit.agentuse.learnings.md").write_text(SEED.replace("blog-writer", "edit"))
    (tmp_path / "agents/renamed.agentuse.learnings.md").write_text(SEED)  # orphan: its agent was renamed
    monkeypatch.chdir(tmp_path)
    return tmp_path


def migrate(*args: str, input: str | None = None):
    return runner.invoke(app, ["learnings", "migrate", *args], input=input)


def test_dry_run_reports_and_writes_nothing(project):
    result = migrate("--all", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "would copy: agents/blog/write.agentuse.learnings.md → " in result.stdout
    assert "orphaned, not migrated: agents/renamed.agentuse.learnings.md" in result.stdout
    assert not store.locate(project / "agents/blog/write.agentuse").store_path.exists()


def test_copies_then_keeps_sources_when_not_interactive(project):
    result = migrate("--all")
    assert result.exit_code == 0, result.output
    dest = store.locate(project / "agents/blog/write.agentuse").store_path
    assert dest.read_text() == SEED
    assert dest.as_posix().endswith("learnings/agents/blog/write.learnings.md")
    assert "nothing is deleted non-interactively without --delete-source" in result.stdout
    assert (project / "agents/blog/write.agentuse.learnings.md").exists()
    again = migrate("--all")
    assert "already copied: agents/blog/write.agentuse.learnings.md" in again.stdout


def test_delete_source_answers_yes_up_front(project):
    result = migrate("--all", "--delete-source")
    assert result.exit_code == 0, result.output
    assert not (project / "agents/blog/write.agentuse.learnings.md").exists()
    assert (project / "agents/renamed.agentuse.learnings.md").exists()  # orphans are only listed


def test_keep_source_answers_no(project):
    migrate("--all", "--keep-source")
    assert (project / "agents/edit.agentuse.learnings.md").exists()


def test_interactive_prompt_deletes_only_on_explicit_yes(project, monkeypatch):
    monkeypatch.setattr("agentuse.cli.learnings.is_interactive", lambda: True)
    migrate("agents/edit.agentuse", input="sure\n")
    assert (project / "agents/edit.agentuse.learnings.md").exists()
    migrate("agents/edit.agentuse", input="yes\n")
    assert not (project / "agents/edit.agentuse.learnings.md").exists()


def test_refuses_rather_than_merges_and_exits_1(project):
    agent = project / "agents/blog/write.agentuse"
    dest = store.locate(agent).store_path
    dest.parent.mkdir(parents=True, exist_ok=True)
    existing = SEED.replace("Keep intros factual", "Something else")
    dest.write_text(existing)
    result = migrate("agents/blog/write.agentuse")
    assert result.exit_code == 1
    assert "refused: agents/blog/write.agentuse.learnings.md" in result.stdout
    assert dest.read_text() == existing


def test_unreadable_source_fails_and_is_not_copied(project):
    (project / "agents/edit.agentuse.learnings.md").write_text("### [nonsense] x\n<!-- 2026-01-01 -->\n")
    result = migrate("--all", "--delete-source")
    assert result.exit_code == 1
    assert "failed: agents/edit.agentuse.learnings.md" in result.stdout
    assert (project / "agents/edit.agentuse.learnings.md").exists()
    assert not store.locate(project / "agents/edit.agentuse").store_path.exists()


def test_a_source_that_is_a_folder_fails_with_the_reason_and_the_rest_migrate(project):
    source = project / "agents/edit.agentuse.learnings.md"
    source.unlink()
    source.mkdir()
    for args in (["--all"], ["agents/edit.agentuse"]):
        result = migrate(*args, "--keep-source")
        assert result.exit_code == 1, result.output
        assert isinstance(result.exception, SystemExit)  # a report and exit 1, not an escaped error
        assert "failed: agents/edit.agentuse.learnings.md → " in result.stdout
        assert "is a directory, not a learnings file" in result.stdout
        assert not store.locate(project / "agents/edit.agentuse").store_path.exists()
    assert store.locate(project / "agents/blog/write.agentuse").store_path.read_text() == SEED  # the rest went


def test_one_agent_or_all_not_both(project):
    assert migrate().exit_code == 1
    assert migrate("agents/edit.agentuse", "--all").exit_code == 1


def test_a_source_with_a_byte_order_mark_migrates_as_every_store_reader_reads_it(project):
    # Editors on Windows save a BOM; the store reads one (store._decode), so migrate must not refuse it.
    source = project / "agents/edit.agentuse.learnings.md"
    source.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
    result = migrate("agents/edit.agentuse", "--keep-source")
    assert result.exit_code == 0, result.output
    assert "copied: agents/edit.agentuse.learnings.md" in result.stdout
    location = store.locate(project / "agents/edit.agentuse")
    assert location.store_path.read_bytes() == source.read_bytes()  # copied byte for byte
    assert [r.id for r in store.load(location).learnings] == [r.id for r in store.parse(SEED).learnings]
    assert "already copied: agents/edit.agentuse.learnings.md" in migrate("agents/edit.agentuse").stdout
