"""No pydantic model of ours takes the builtin `list` as a default factory (core/model_defaults.py): pydantic
parses its text signature with the tokenizer for each such field when it builds the model, about 0.1 ms a
field on every command's start. The check walks every model the package defines."""

from __future__ import annotations

import importlib
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "runtime", "flows", "tasks", "cli", "serve", "deployments")


def _models() -> list[type[BaseModel]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            importlib.import_module(".".join(("agentuse", *(parts[:-1] if parts[-1] == "__init__" else parts))))
    found, pending = [], [BaseModel]
    while pending:
        for sub in pending.pop().__subclasses__():
            if sub not in found:
                found.append(sub)
                pending.append(sub)
    return [model for model in found if model.__module__.startswith("agentuse.")]


def test_no_model_field_takes_the_builtin_list_as_its_default_factory():
    models = _models()
    assert len(models) > 100  # every module was imported
    slow = [f"{model.__module__}.{model.__qualname__}.{name}" for model in models
            for name, field in model.model_fields.items() if field.default_factory is list]
    assert slow == []
