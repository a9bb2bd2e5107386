"""The agent's contract: what rules are vetted against, and the hash that stamps them
(spec: Rules are stamped with the instructions they were checked against).

The hash covers the body only. The frontmatter is configuration (model, approval, learning.max, tools);
bumping `max` or switching the model does not change what a rule was checked against, and marking every
rule stale for it would hold the whole set out of injection until the next tidy.

The learned block is excised before hashing (the spec's choice, where upstream hashed it too): a
graduation rewrites only the block, so it can never make the other rules stale, and nothing needs to be
re-stamped after it. Whitespace that does not change meaning is normalised away (CRLF, trailing spaces,
runs of blank lines, the blank line that separates an appended block), so a checkout with different line
endings or an editor that trims lines does not invalidate every rule either.
"""

from __future__ import annotations

import hashlib
import re

from agentuse.core.agent_errors import BlockMarkerError
from agentuse.core.agent_file import AgentFile, AgentFileError, split_frontmatter
from agentuse.core.frontmatter import read as read_plain
from agentuse.core.learned_block import find_block
from agentuse.core.learning import Learning

HASH_LENGTH = 12
_BLANK_RUNS = re.compile(r"\n{3,}")


def instruction_hash(agent_text_or_body: str) -> str:
    """First 12 hex of sha256 over the instructions with the learned block excised. Accepts the whole file
    or just its body: a leading YAML-mapping frontmatter is dropped, so both give the same hash."""
    return body_hash(_body(agent_text_or_body))


def agent_hash(agent: AgentFile) -> str:
    """The hash for a loaded agent, from its parsed body (no guessing about frontmatter)."""
    return body_hash(agent.body)


def body_hash(body: str) -> str:
    return hashlib.sha256(instructions(body).encode("utf-8")).hexdigest()[:HASH_LENGTH]


def instructions(body: str) -> str:
    """The hashed text: the body, learned block excised, whitespace normalised."""
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    try:
        span = find_block(body, frontmatter=False)
    except BlockMarkerError:
        # Unbalanced markers: nothing is excised. Graduation refuses to edit such a file, so the hash
        # cannot drift through it; and a run must still be able to compute a hash.
        span = None
    if span is not None:
        body = body[:span.start_line] + "\n" + body[span.after:]
    lines = "\n".join(line.rstrip() for line in body.split("\n"))
    return _BLANK_RUNS.sub("\n\n", lines).strip("\n")


def _body(text: str) -> str:
    # A body may itself start with a `---` rule line; only a fenced block that is YAML with keys (or
    # empty) is frontmatter, which markdown between two rules practically never is.
    try:
        yaml_text, body = split_frontmatter(text)
    except AgentFileError:
        return text
    if yaml_text is None:
        return text
    if not yaml_text.strip():
        return body
    plain = read_plain(yaml_text)  # the usual frontmatter, without importing PyYAML (core/frontmatter.py)
    if plain is not None and plain[0]:
        return body
    import yaml

    try:
        return body if isinstance(yaml.safe_load(yaml_text), dict) else text
    except yaml.YAMLError:
        return text


def contract_text(agent: AgentFile) -> str:
    """What the vet sees: the whole body, learned block included, never truncated (the spec removed the
    3,000-character cut that let an evaluator rediscover an explicit instruction as a new learning)."""
    return agent.body.replace("\r\n", "\n").strip("\n")


def is_stale(learning: Learning, current_ih: str) -> bool:
    """Vetted against instructions that no longer exist (`Learning.stale_against`, the one definition)."""
    return learning.stale_against(current_ih)
