"""The top-level command: version and the registered command groups."""

from __future__ import annotations

from importlib.metadata import version

from typer.testing import CliRunner

from agentuse.cli.app import app

runner = CliRunner()


def test_version_prints_the_installed_distribution_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"agentuse {version('agentuse')}\n"


def test_every_command_of_the_spec_is_registered():
    top = runner.invoke(app, ["--help"]).stdout
    for command in ("learnings", "doctor", "run", "sessions", "serve", "deploy", "demo"):
        assert command in top
    sub = runner.invoke(app, ["learnings", "--help"]).stdout
    for command in ("migrate", "capture", "add", "tidy", "undo"):
        assert command in sub
