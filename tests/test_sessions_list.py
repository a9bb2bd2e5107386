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
