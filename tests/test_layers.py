"""The arrows between layers point down only (DESIGN.md, "The house"), checked on the source itself.

The order is cli -> serve -> deployments -> flows -> tasks -> runtime -> core: the capture `agent`
channel runs an agent from a task, and tasks read session logs, so runtime sits below tasks. Nothing
may import a layer above it, and core and runtime never import prefect.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {
    "core": set(),
    "runtime": {"core"},
    "tasks": {"runtime", "core"},
    "flows": {"tasks", "runtime", "core"},
    "deployments": {"flows", "tasks", "core"},
    "serve": {"flows", "runtime", "core"},
    "cli": {"serve", "deployments", "flows", "tasks", "runtime", "core"},
}
NO_PREFECT = {"core", "runtime"}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_every_import_points_down():
    wrong = []
    for layer, allowed in ALLOWED.items():
        for path in sorted((ROOT / layer).rglob("*.py")):
            for module in _imports(path):
                parts = module.split(".")
                if parts[0] == "agentuse" and len(parts) > 1 and parts[1] != layer and parts[1] not in allowed:
                    wrong.append(f"{path.relative_to(ROOT)} imports {module}")
                if layer in NO_PREFECT and parts[0] == "prefect":
                    wrong.append(f"{path.relative_to(ROOT)} imports {module} (no prefect below tasks)")
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_a_violation(tmp_path):
    # The walker must actually find imports, or the test above could never fail.
    sample = tmp_path / "x.py"
    sample.write_text("def f():\n    from agentuse.cli.app import app\n    import prefect\n")
    assert {"agentuse.cli.app", "prefect"} <= _imports(sample)
