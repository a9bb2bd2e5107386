"""Shared fixtures: every test gets its own state directory and no network but loopback."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs every property test on the same derandomised examples, so no landing depends on a seed; locally
# they stay random, and any failure found is replayed first from hypothesis' example database.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")

# `import prefect` creates $PREFECT_HOME (~/.prefect by default) the moment it is imported, and some test
# modules import it at collection, before any fixture runs: point it at a temporary folder first, removed
# when the session ends (each test then gets its own, below).
_COLLECTION_PREFECT_HOME = tempfile.mkdtemp(prefix="agentuse-prefect-home-")
os.environ["PREFECT_HOME"] = _COLLECTION_PREFECT_HOME
atexit.register(shutil.rmtree, _COLLECTION_PREFECT_HOME, ignore_errors=True)

# Retry back-off is read when task modules are imported: no test should sleep through real back-off.
os.environ.setdefault("AGENTUSE_RETRY_BASE_SECONDS", "0")

# tests/ is on sys.path (rootdir conftest, no __init__.py), so the fakes import as `fakes`.
pytest_plugins = ["fakes.fixtures"]


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path_factory, monkeypatch):
    # Tests must never touch ~/.local/share/agentuse or ~/.prefect, nor reach a real model.
    data = tmp_path_factory.mktemp("agentuse-data")
    monkeypatch.setenv("AGENTUSE_DATA_DIR", str(data))
    monkeypatch.setenv("AGENTUSE_CONFIG_DIR", str(tmp_path_factory.mktemp("agentuse-config")))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    from agentuse.core.models import PROVIDERS

    for spec in PROVIDERS.values():  # every provider's key and endpoint: a real one must never be reached
        for variable in (spec.key_variable, spec.base_url_variable):
            if variable:
                monkeypatch.delenv(variable, raising=False)
    # The AWS credential chain reads the process environment and ~/.aws: none of the developer's, and never
    # the instance metadata service (a link-local address, not loopback).
    for variable in [v for v in os.environ if v.startswith("AWS_")]:
        monkeypatch.delenv(variable, raising=False)
    aws = tmp_path_factory.mktemp("aws")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(aws / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(aws / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path_factory.mktemp("prefect-home")))
    yield data


@pytest.fixture
def data_dir(_isolated_state) -> Path:
    return Path(os.environ["AGENTUSE_DATA_DIR"])


@pytest.fixture
def invoke():
    """`invoke("run", agent, ...)`: the agentuse command in-process; asserts the exit code (0 unless `code=`
    says otherwise) and returns the result."""
    from typer.testing import CliRunner

    from agentuse.cli.app import app

    runner = CliRunner()

    def run(*args, code: int = 0):
        result = runner.invoke(app, [str(a) for a in args])
        assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
        return result

    return run


@pytest.fixture
def cli(invoke, fake_anthropic, monkeypatch):
    """`invoke`, with the models pointed at the fake Messages API."""
    for key, value in fake_anthropic.env().items():
        monkeypatch.setenv(key, value)
    return invoke
