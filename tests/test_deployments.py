"""The deployments as `to_deployment()` builds them, inspected without a server: the tidy schedule and its
parameters, the capture trigger's event and the parameters it templates from that event (rendered with
the server's own template renderer against the event the runtime emits), and prefect.yaml in step."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from agentuse.deployments import definitions as d

REPO = Path(__file__).resolve().parents[1]


def test_tidy_deployment_is_scheduled_daily_by_default_with_the_project_root(tmp_path):
    deployment = d.tidy_deployment(tmp_path)
    assert deployment.name == "scheduled-tidy"
    assert deployment.entrypoint == "agentuse.deployments.flows.project_tidy"
    [schedule] = deployment.schedules
    assert schedule.schedule.cron == "0 3 * * *"
    assert schedule.schedule.timezone == "UTC"
    assert deployment.parameters == {"root": str(tmp_path.resolve()), "concurrency": 4}
    assert not deployment.triggers


def test_tidy_schedule_is_the_users(tmp_path):
    deployment = d.tidy_deployment(tmp_path, cron="30 22 * * 1-5", timezone="Europe/Paris", concurrency=2)
    [schedule] = deployment.schedules
    assert (schedule.schedule.cron, schedule.schedule.timezone) == ("30 22 * * 1-5", "Europe/Paris")
    assert deployment.parameters["concurrency"] == 2


def test_capture_deployment_triggers_on_run_completed_with_templated_parameters():
    deployment = d.capture_deployment()
    assert deployment.name == "post-run-capture"
    assert deployment.entrypoint == "agentuse.deployments.flows.capture"
    assert not deployment.schedules
    [trigger] = deployment.triggers
    assert trigger.expect == {"agentuse.run.completed"}
    assert trigger.match.root == {"prefect.resource.id": "agentuse.session.*"}
    assert trigger.match_related.root == {"prefect.resource.role": "agent"}
    assert trigger.threshold == 1 and trigger.posture.value == "Reactive"
    assert set(trigger.parameters) == {"agent", "session"}  # the capture flow's required parameters
    assert all("{{ event." in value for value in trigger.parameters.values())


def _emitted_event(monkeypatch, agent: Path):
    """The event exactly as the runtime's post-run hook emits it (emit_event intercepted)."""
    import prefect.events

    from agentuse.flows import handoff

    seen = {}

    def fake_emit(**kwargs):
        seen.update(kwargs)
        return object()

    monkeypatch.setattr(prefect.events, "emit_event", fake_emit)
    result = SimpleNamespace(session_id="01KABCDEFGHJKMNPQRSTVWXYZ0", session_file="/tmp/s.jsonl", status="completed")
    assert handoff.emit_completed(agent, result)
    return seen


def test_templates_render_to_the_agent_file_and_session_id_of_the_emitted_event(monkeypatch, tmp_path):
    from prefect.server.events.schemas.events import Event
    from prefect.server.utilities.user_templates import render_user_template_sync
    from prefect.types._datetime import now

    agent = tmp_path / "blog-writer.agentuse"
    agent.write_text("---\nmodel: anthropic:x\n---\nbody\n")
    emitted = _emitted_event(monkeypatch, agent)
    assert emitted["event"] == d.RUN_COMPLETED
    event = Event(occurred=now("UTC"), event=emitted["event"], resource=emitted["resource"],
                  related=emitted["related"], payload=emitted.get("payload", {}), id=__import__("uuid").uuid4())
    rendered = {key: render_user_template_sync(template, {"event": event})
                for key, template in d.CAPTURE_PARAMETERS.items()}
    assert rendered == {"agent": str(agent), "session": "01KABCDEFGHJKMNPQRSTVWXYZ0"}
    # and the trigger's filters match that event
    assert event.resource.id.startswith("agentuse.session.")
    assert any(r.role == d.AGENT_ROLE for r in event.related)


def test_prefect_yaml_describes_the_same_deployments():
    spec = yaml.safe_load((REPO / "deployments" / "prefect.yaml").read_text())
    by_name = {dep["name"]: dep for dep in spec["deployments"]}
    tidy, capture = by_name[d.TIDY_DEPLOYMENT], by_name[d.CAPTURE_DEPLOYMENT]
    assert tidy["entrypoint"] == d.tidy_deployment(REPO).entrypoint
    assert tidy["schedules"][0]["cron"] == d.DEFAULT_CRON
    assert set(tidy["parameters"]) == {"root", "concurrency"}
    assert capture["entrypoint"] == d.capture_deployment().entrypoint
    [trigger] = capture["triggers"]
    assert trigger["expect"] == [d.RUN_COMPLETED]
    assert trigger["match"] == {"prefect.resource.id": d.SESSION_RESOURCE}
    assert trigger["match_related"] == {"prefect.resource.role": d.AGENT_ROLE}
    assert trigger["parameters"] == d.CAPTURE_PARAMETERS


@pytest.mark.parametrize("cron", ["not a cron", "61 3 * * *"])
def test_a_bad_cron_is_refused_before_anything_is_served(cron, tmp_path):
    with pytest.raises(ValueError):
        d.tidy_deployment(tmp_path, cron=cron)


def test_deploy_serve_refuses_without_a_prefect_server_and_names_the_fix(tmp_path):
    from typer.testing import CliRunner

    from agentuse.cli.app import app

    result = CliRunner().invoke(app, ["deploy", "serve", "-C", str(tmp_path)])
    assert result.exit_code == 1
    assert "No Prefect server is configured" in result.output and "prefect server start" in result.output


def test_deploy_serve_refuses_a_bad_schedule_before_touching_a_server(tmp_path):
    from typer.testing import CliRunner

    from agentuse.cli.app import app

    result = CliRunner().invoke(app, ["deploy", "serve", "-C", str(tmp_path), "--cron", "every day"])
    assert result.exit_code == 1
    assert "invalid schedule 'every day'" in result.output and '--cron "0 3 * * *"' in result.output


def test_deploy_serve_refuses_an_unknown_time_zone_naming_it(tmp_path):
    # It said "For further information visit https://errors.pydantic.dev/..." and asked for five cron
    # fields, when the cron was fine and the time zone was not.
    from typer.testing import CliRunner

    from agentuse.cli.app import app

    result = CliRunner().invoke(app, ["deploy", "serve", "-C", str(tmp_path), "--timezone", "Nope/Zone"])
    assert result.exit_code == 1
    [line] = result.output.strip().splitlines()
    assert "time zone 'Nope/Zone'" in line and "--timezone" in line and "Europe/Paris" in line
    assert "pydantic" not in line and "cron" not in line


def test_the_cli_default_schedule_is_the_deployments():
    from agentuse.cli import deploy

    assert deploy.DEFAULT_CRON == d.DEFAULT_CRON
