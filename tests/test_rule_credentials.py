"""A credential a person types into a rule by hand stays out of what is shared: the agent file (committed),
`learnings --json`, and the learnings file the agent's rules are read from.

Rules that come through capture, `--remember` and `learnings add` are redacted when stamped
(core/capture.py); these are the two ways around that: `learnings --edit`, and a learnings file written
by hand (or before redaction existed) that the tidy-up graduates into the agent file.
"""

from __future__ import annotations

import stat

from agentuse.core import store
from agentuse.core.contract import instruction_hash
from agentuse.core.learning import Learning
from agentuse.core.store_format import StoreDoc, render

KEY = "sk-ant-api03-Zq7Xw2Lp9Vt4Mk8Rn3Bc6Hy1Dg5Fj0Ks"
PASSWORD = "hunter22Xy7"

AGENT = """---
model: anthropic:claude-test
learning:
  apply: true
---

# Deployer

Deploy the site when asked.
"""


def _agent(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    path = root / "deploy.agentuse"
    path.write_text(AGENT)
    return path


def test_a_proven_rule_holding_a_credential_graduates_without_it(invoke, tmp_path):
    agent = _agent(tmp_path)
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True, exist_ok=True)
    location.store_path.write_text(render(StoreDoc(name="deploy", learnings=[
        Learning(id="0000000a", title=f"Authenticate deploys with {KEY}", body=f"Use password={PASSWORD} on staging.",
                 date="2026-06-01", ih=instruction_hash(AGENT), ok=3),
    ])))
    invoke("learnings", "tidy", agent)
    written = agent.read_text()
    assert "<!-- agentuse:learned -->" in written and "Authenticate deploys with ***" in written
    assert KEY not in written and PASSWORD not in written


def test_a_rule_typed_in_the_editor_is_stored_without_its_credential(invoke, tmp_path, monkeypatch):
    agent = _agent(tmp_path)
    invoke("learnings", "add", agent, "Keep release notes short")
    editor = tmp_path / "editor.sh"
    editor.write_text(f"""#!/bin/sh
cat >> "$1" <<'X'

### [tip] Authenticate deploys with {KEY}
<!-- src:manual | 2026-11-30 -->
<!-- evidence: reviewer: "deploy key is ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789" -->
Use password={PASSWORD} for the staging database.
X
""")
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("EDITOR", str(editor))
    result = invoke("learnings", agent, "--edit")
    assert "replaced by ***" in result.stderr
    stored = store.locate(agent).store_path.read_text()
    assert "Authenticate deploys with ***" in stored and "password=***" in stored
    assert KEY not in stored and PASSWORD not in stored and "ghp_" not in stored
    shown = invoke("learnings", agent, "--json").stdout
    assert KEY not in shown and PASSWORD not in shown
