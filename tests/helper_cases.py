"""One realistic request per helper operation, shared by the Anthropic and offline helper tests."""

from __future__ import annotations

from agentuse.core.helper import protocol as p

CONTRACT = """---
model: anthropic:claude-sonnet-5
approval: true
learning: true
---

# Blog Writer

Write short productivity blog posts (150-200 words).

## Guidelines
- Start with a relatable hook
- Include 3 actionable tips
- Never publish without an approval gate.
"""

TRACE = """user: Write a post about inbox zero.
assistant: tool write_file {"path": "posts/inbox-zero.md"} -> ok
assistant: The draft has a hook, 3 tips and cites a source link for the email statistic.
reviewer: Always include source links before publishing.
"""

RULES = [
    p.RuleRef(id="a1b2c3d4", text="Always include source links before publishing.", human=True, re=1),
    p.RuleRef(id="e5f6a7b8", text="Before a post is published, make sure it links to every source it used."),
    p.RuleRef(id="c9d0e1f2", text="Keep posts between 150 and 200 words, excluding the title and captions."),
]

REQUESTS: dict[str, tuple[str, object]] = {
    "extract": ("extract", p.ExtractRequest(guidance="Only capture rules about sourcing.", contract=CONTRACT,
                                            rules_in_force=RULES[2:], trace=TRACE)),
    "vet": ("vet", p.VetRequest(contract=CONTRACT, rules_in_force=RULES, trace=TRACE, candidates=[
        p.VetCandidate(id="c1", text="Include 5 actionable tips in every post."),
        p.VetCandidate(id="c2", text="Cite sources inline next to each statistic.", human=True),
    ])),
    "ground": ("ground", p.GroundRequest(comment="This intro is too salesy.",
                                         reviewed_output="# Inbox zero\nTransform your life with this one trick!",
                                         contract=CONTRACT)),
    "reconcile": ("reconcile", p.ReconcileRequest(draft=p.Draft(title="Never include source links in posts."),
                                                  draft_is_human=True, rules_in_force=RULES, cap_full=True)),
    "plan_groups": ("plan_groups", p.PlanRequest(rules=RULES)),
    "rewrite_group": ("rewrite_group", p.RewriteRequest(kind=p.MoveKind.merge, originals=RULES[:2])),
    "audit": ("audit", p.AuditRequest(originals=RULES[2:], rewritten=p.Draft(title="Keep posts short",
                                                                              body="Keep posts between 150 and 200 words."))),
    "rewrite_block": ("rewrite_block", p.BlockRequest(rules=RULES)),
}

ANSWER_TYPES = {
    "extract": p.ExtractAnswer, "vet": p.VetAnswer, "ground": p.GroundAnswer, "reconcile": p.ReconcileAnswer,
    "plan_groups": p.PlanAnswer, "rewrite_group": p.RewriteAnswer, "audit": p.AuditAnswer,
    "rewrite_block": p.BlockAnswer,
}

# What a well-behaved model would send back through the forced tool, per operation.
MODEL_ANSWERS: dict[str, dict] = {
    "extract": {"candidates": [{"category": "tip", "title": "Link every source",
                                "body": "Link every source a post cites before publishing."}]},
    "vet": {"verdicts": [
        {"id": "c1", "verdict": "contradiction", "detail": "Include 3 actionable tips", "against": "contract"},
        {"id": "c2", "verdict": "pass", "detail": ""},
    ]},
    "ground": {"rule": {"category": "tip", "title": "Keep informational intros factual",
                        "body": "For informational posts, keep intros factual rather than promotional."}},
    "reconcile": {"action": "fold", "replaces": ["a1b2c3d4", "e5f6a7b8"],
                  "merged": {"category": "tip", "title": "Leave source links out of posts",
                             "body": "Never include source links in posts."}},
    "plan_groups": {"moves": [{"kind": "merge", "ids": ["a1b2c3d4", "e5f6a7b8"], "reason": "same rule"}]},
    "rewrite_group": {"rule": {"category": "tip", "title": "Link every source before publishing",
                               "body": "Before publishing, link every source the post uses."},
                      "covers": ["a1b2c3d4", "e5f6a7b8"], "dropped": []},
    "audit": {"missing": [{"id": "c9d0e1f2", "what": "the exception: excluding the title and captions"}]},
    "rewrite_block": {"rules": [{"category": "tip", "text": "Link every source before publishing.",
                                 "covers": ["a1b2c3d4", "e5f6a7b8"]},
                                {"category": "tip", "text": RULES[2].text, "covers": ["c9d0e1f2"]}],
                      "dropped": []},
}


def call(helper, operation: str):
    method, request = REQUESTS[operation]
    return getattr(helper, method)(request)
