"""Every package folder must be listed in pyproject.toml, or the wheel silently leaves it out."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["core", "runtime", "tasks", "flows", "deployments", "cli", "serve"]


def _package_folders() -> set[str]:
    found = set()
    for layer in LAYERS:
        for init in (ROOT / layer).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT).as_posix()
            found.add("agentuse." + rel.replace("/", "."))
    return found


def test_every_package_folder_is_listed_and_mapped():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    assert listed == _package_folders()
    mapping = config["package-dir"]
    for package in listed:
        folder = package.removeprefix("agentuse.").replace(".", "/")
        assert mapping[package] == folder


def test_folders_without_init_would_be_missed():
    # A folder holding Python modules but no __init__.py would be left out of the wheel.
    for layer in LAYERS:
        for module in (ROOT / layer).rglob("*.py"):
            assert (module.parent / "__init__.py").exists(), module
