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


def test_h_is_help_at_every_level():
    for args in (["-h"], ["learnings", "-h"], ["learnings", "tidy", "-h"], ["sessions", "list", "-h"],
                 ["deploy", "serve", "-h"], ["doctor", "-h"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "Usage: " in result.stdout, (args, result.output)
        assert runner.invoke(app, [*args[:-1], "--help"]).stdout == result.stdout


def test_learnings_help_lists_the_options_of_learnings_agent_file():
    page = runner.invoke(app, ["learnings", "--help"]).stdout
    assert "AGENT_FILE [--path|--edit|--json]" in page
    for option in ("--path", "--edit", "--json"):
        assert option in page


def test_a_model_fault_is_one_error_line_not_a_traceback(tmp_path, monkeypatch):
    """HelperError is an AgentuseError: the one handler in cli/app.py reports it like any other."""
    import agentuse.core.describe
    from agentuse.core.errors import AgentuseError
    from agentuse.core.helper.protocol import PermanentHelperError

    assert issubclass(PermanentHelperError, AgentuseError)

    def broken(path):
        raise PermanentHelperError("anthropic:claude: the API answered 400: bad\x1b[2J request", operation="vet")

    monkeypatch.setattr(agentuse.core.describe, "describe", broken)
    result = runner.invoke(app, ["doctor", str(tmp_path / "a.agentuse")])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception
    assert result.stderr == "error: anthropic:claude: the API answered 400: bad\\x1b[2J request\n"
    assert result.stdout == ""
