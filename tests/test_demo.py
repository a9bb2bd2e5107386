"""`agentuse demo`: the whole lifecycle on examples/, offline, in its own folder."""

from __future__ import annotations

import os
import re

from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core.learned_block import read_block


def test_the_demo_walks_the_lifecycle_offline_and_says_where_the_files_are(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-must-not-be-used")  # the demo clears it for its own steps
    data_dir = os.environ["AGENTUSE_DATA_DIR"]
    result = CliRunner().invoke(app, ["demo", "--dir", str(tmp_path / "demo")], catch_exceptions=False)
    out = result.output
    assert result.exit_code == 0, out

    # 1-2: the failed-then-corrected tool call is captured on approval; the note is saved.
    assert re.search(r"Extracted 1 learning\(s\), 0 quarantined", out)
    assert '[Learning] Saved "Always include source links before publishing"' in out
    assert "[error-fix] write_file:" in out
    # 3: the second run's prompt carried both rules.
    assert "2 learning(s) injected into the run's prompt:" in out and "## Relevant Learnings" in out
    # ...and each rule's figures from it (issue 18): the replay repeats the write_file failure, and the review
    # comments on what the remembered rule says. Before that run, neither rule had been in force.
    assert out.count("        in force 0 runs · 0 approved clean · 0 commented") == 2
    assert "        in force 1 run · 0 approved clean · 1 commented · commented on about it 1×\n" in out
    assert "        in force 1 run · 0 approved clean · 1 commented · recurred 1×\n" in out
    # 4: a tidy-up of the 58 (+2) learnings, with graduation into the agent file.
    assert "reading 60 learnings to see what repeats…" in out and "\n    Done\n" in out
    assert re.search(r"\d+ merged, \d+ rewritten, \d+ retired, 2 quarantined, 9 now permanent — 60 → \d+ in force",
                     out)
    assert "The agent file now carries 10 rule(s) in its learned block." in out
    # The offline merge and its audit agree on what "carried" means, so near-identical rules finish merging.
    assert "carries only one of the originals" not in out
    # 5: undo put both files back.
    assert "Both files identical to before the tidy-up: yes" in out
    agent = tmp_path / "demo" / "project" / "blog-writer.agentuse"
    assert len(read_block(agent.read_text())) == 1
    assert f"agent file {agent}" in out
    # Its own state directory, and the environment handed back as it was.
    assert (tmp_path / "demo" / "state" / "project").is_dir()
    assert os.environ["AGENTUSE_DATA_DIR"] == data_dir and os.environ["ANTHROPIC_API_KEY"] == "sk-must-not-be-used"


def test_the_demo_refuses_a_folder_that_is_in_use(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("mine")
    result = CliRunner().invoke(app, ["demo", "--dir", str(tmp_path)])
    assert result.exit_code == 1 and "is not empty: pick another --dir" in result.output


def test_the_demo_refuses_a_dir_that_is_a_file_in_one_line(tmp_path):
    for given, blocker in ((tmp_path / "a-file", tmp_path / "a-file"),
                           (tmp_path / "taken", tmp_path / "taken" / "project")):
        blocker.parent.mkdir(exist_ok=True)
        blocker.write_text("mine\n")
        result = CliRunner().invoke(app, ["demo", "--dir", str(given)])
        assert result.exit_code == 1 and result.exception is None or isinstance(result.exception, SystemExit)
        assert result.stderr.startswith(f"error: {blocker}: is a file"), result.stderr
        assert blocker.read_text() == "mine\n"
