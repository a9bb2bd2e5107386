"""Flow parameters as a Prefect user meets them: in the dashboard's run form and `prefect deployment run
--param ...`. Each says what it is (the schema's descriptions come from the flows' docstrings), the bounds
are checked before a run starts (and before serving starts).

No server: the schemas and Prefect's own parameter validation are read from the built flows.
"""

from __future__ import annotations

import pytest


def _flows():
    from agentuse.deployments import flows

    return {name: getattr(flows, name) for name in ("capture", "project_tidy", "remember", "restore", "tidy")}


@pytest.mark.parametrize("name", ["capture", "project_tidy", "remember", "restore", "tidy"])
def test_every_parameter_says_what_it_is(name):
    from prefect.utilities.callables import parameter_schema

    built = _flows()[name]
    properties = parameter_schema(built).model_dump()["properties"]
    assert properties
    assert {param: spec.get("description") for param, spec in properties.items() if not spec.get("description")} == {}


def test_the_deployments_schema_bounds_concurrency_and_prefect_refuses_zero(tmp_path):
    from prefect.exceptions import ParameterTypeError

    from agentuse.deployments import definitions

    schema = definitions.tidy_deployment(tmp_path)._parameter_openapi_schema.model_dump()
    assert schema["properties"]["concurrency"]["minimum"] == 1
    with pytest.raises(ParameterTypeError, match="concurrency"):
        _flows()["project_tidy"].validate_parameters({"root": str(tmp_path), "concurrency": 0})


def test_serving_refuses_a_concurrency_below_one_before_asking_the_server(tmp_path, capsys):
    from agentuse.deployments.__main__ import main

    assert main(["--root", str(tmp_path), "--concurrency", "0"]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: ") and "--concurrency" in line and "PREFECT_API_URL" not in line
