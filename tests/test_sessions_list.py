"""`agentuse sessions list --limit N` reads only the logs it shows: the newest first, stopping at N."""

from __future__ import annotations

from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.runtime import summary

IDS = [f"01KSESSION{n:016d}" for n in range(12)]  # ULID-like: name order is start order


def test_the_limit_is_applied_before_the_logs_are_parsed(data_dir, monkeypatch):
    sessions = data_dir / "project" / "abc123" / "session"
    sessions.mkdir(parents=True)
    for sid in IDS:
        (sessions / f"{sid}.jsonl").write_text("")
    parsed: list[str] = []
    real = summary.summarize

    def counting(path):
        parsed.append(path.stem)
        return real(path)

    monkeypatch.setattr(summary, "summarize", counting)
    result = CliRunner().invoke(app, ["sessions", "list", "--limit", "3"])
    assert result.exit_code == 0, result.output
    assert parsed == IDS[::-1][:3]  # the three newest, and nothing else read
    assert [line.split()[0] for line in result.output.splitlines()[1:]] == IDS[::-1][:3]


def test_a_log_that_cannot_be_read_is_named_and_the_rest_are_listed(data_dir):
    sessions = data_dir / "project" / "abc123" / "session"
    sessions.mkdir(parents=True)
    for sid in IDS[:3]:
        (sessions / f"{sid}.jsonl").write_text("")
    (sessions / f"{IDS[1]}.jsonl").unlink()
    (sessions / f"{IDS[1]}.jsonl").mkdir()  # a folder where a log should be
    for args in (["sessions", "list"], ["sessions", "list", "--json"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 1, result.output
        assert IDS[0] in result.stdout and IDS[2] in result.stdout and IDS[1] not in result.stdout
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
        assert result.stderr.startswith(f"error: could not read 1 session log: {sessions / IDS[1]}.jsonl: is a directory")
