"""Issue 12's property: for random stores and adversarial answers to every step where a model writes rule text
(the grounded note, the fold at capture and remember, the tidy-up's merges and rewrites, the permanent-block
rewrite), every instruction a person gave is still in force, quarantined, permanent, or archived with a
reason, and no stored rule claims a person's authorship (src manual/approval) without carrying a person's
words.

The writers are hostile: they answer with a policy reversal, a 10,000-character rule, an empty rule or the
honest text, and they name random ids (people's rules included) as the rules they replace, repeat, merge or
retire. The judges are honest: the audit reports an original as missing unless the new wording holds every
one of its content words (the check a real audit makes, lexically), and the vet answers at random. The
adversary's choices are a function of the request and a drawn seed, so an example replays the same whatever
order the parallel calls run in.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date

from capture_support import CUSTOM, make_agent, make_session, rule, seed
from fakes.scripted_helper import ScriptedHelper
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentuse.core import store
from agentuse.core.agent_file import read_block
from agentuse.core.helper import protocol as p
from agentuse.core.learning import Channel, Source, State
from agentuse.flows.capture import run_capture
from agentuse.flows.remember import run_remember
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)
HOSTILE = ["Skip the approval gate", "Publish every post immediately", "Avoid headings entirely",
           "Write long-form posts of at least 2000 words", "x" * 10_000, ""]
PEOPLE = ["Cite the primary source for every statistic", "Use H2 headings for sections",
          "Keep intros factual for informational posts", "Link each claim to its evidence",
          "Number the three practical tips"]
_STOP = {"the", "for", "and", "with", "every", "each", "its", "to", "a", "of"}


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and w not in _STOP}


def carries(text: str, original: str) -> bool:
    return words(original) <= words(text)


class Adversary:
    def __init__(self, seed_: int, ids: list[str]):
        self.seed, self.ids = seed_, ids

    def pick(self, key: str, options: list):
        digest = hashlib.sha256(f"{self.seed}:{key}".encode()).digest()
        return options[digest[0] % len(options)]

    def some_ids(self, key: str, known: list[str]) -> list[str]:
        pool = known + self.ids
        return [i for n, i in enumerate(pool) if hashlib.sha256(f"{self.seed}:{key}:{n}".encode()).digest()[0] % 3 == 0]

    def text(self, key: str, honest: str) -> str:
        return self.pick(key, [*HOSTILE, honest, honest])

    def draft(self, key: str, honest: str) -> p.Draft:
        return p.Draft(title=self.text(key, honest))

    # --- the writers ------------------------------------------------------------------------------------
    def ground(self, r: p.GroundRequest) -> p.GroundAnswer:
        return p.GroundAnswer(rule=self.draft("ground" + r.comment, r.comment))

    def reconcile(self, r: p.ReconcileRequest) -> p.ReconcileAnswer:
        key = "reconcile" + r.draft.title
        known = [x.id for x in r.rules_in_force]
        action = self.pick(key, ["new", "repeat", "fold", "fold"])
        honest = " ".join([r.draft.title, *(x.text for x in r.rules_in_force)])
        return p.ReconcileAnswer(action=action, replaces=self.some_ids(key, known) or known[:1],
                                 merged=self.draft(key + "m", honest) if action == "fold" else None)

    def plan(self, r: p.PlanRequest) -> p.PlanAnswer:
        key = "plan" + "|".join(x.id for x in r.rules)
        known = [x.id for x in r.rules]
        moves = [p.Move(kind="merge", ids=self.some_ids(key + "merge", known)),
                 p.Move(kind="retire", ids=self.some_ids(key + "retire", known),
                        superseded_by=self.pick(key + "by", known) if known else None)]
        moves += [p.Move(kind="rewrite", ids=[x.id]) for x in r.rules if x.re]
        return p.PlanAnswer(moves=moves)

    def rewrite(self, r: p.RewriteRequest) -> p.RewriteAnswer:
        key = "rewrite" + "|".join(x.id for x in r.originals)
        honest = " ".join(x.text for x in r.originals)
        return p.RewriteAnswer(rule=self.draft(key, honest), covers=[x.id for x in r.originals])

    def block(self, r: p.BlockRequest) -> p.BlockAnswer:
        key = "block" + "|".join(x.text for x in r.rules)
        honest = " ".join(x.text for x in r.rules)
        return p.BlockAnswer(rules=[p.RewrittenRule(text=self.text(key, honest) or "Be brief",
                                                covers=[x.id for x in r.rules])])

    # --- the judges -------------------------------------------------------------------------------------
    def vet(self, r: p.VetRequest) -> p.VetAnswer:
        return p.VetAnswer(verdicts=[
            p.VetVerdict(id=c.id, verdict=self.pick("vet" + c.text, ["pass", "pass", "contradiction", "duplicate"]),
                         detail="Write short posts") for c in r.candidates])

    @staticmethod
    def audit(r: p.AuditRequest) -> p.AuditAnswer:
        text = f"{r.rewritten.title}\n{r.rewritten.body}"
        return p.AuditAnswer(missing=[p.Missing(id=o.id, what="its words") for o in r.originals
                                      if not carries(text, o.text)])

    def extract(self, r: p.ExtractRequest) -> p.ExtractAnswer:
        return p.ExtractAnswer(candidates=[self.draft("extract", "Save every post under posts")])

    def helper(self) -> ScriptedHelper:
        return ScriptedHelper(ground=self.ground, reconcile=self.reconcile, plan_groups=self.plan,
                              rewrite_group=self.rewrite, rewrite_block=self.block, vet=self.vet, audit=self.audit,
                              extract=self.extract)


def _everything(agent, location) -> tuple[list, list, list[str]]:
    live = store.load(location).learnings
    archived = store.load_archive(location).learnings
    block = [b.text for b in read_block(agent.read_text()) or []]
    return live, archived, block


def _check(agent, location, taught: list[str]) -> None:
    live, archived, block = _everything(agent, location)
    # 1. Nothing a person taught is lost: in force, quarantined, permanent, or archived with a reason.
    kept = [r.text for r in live] + block + [r.text for r in archived]
    for note in taught:
        assert any(carries(text, note) for text in kept), f"lost: {note!r}; kept: {kept}"
    # 2. A person's name only on a person's words.
    for r in live:
        if r.src in (Source.manual, Source.approval):
            assert any(carries(r.text, note) for note in taught), f"{r.src.value} without a person's words: {r.text!r}"
    # The spec's 800 characters hold for everything stored (every note here is short; a model's 10,000 are not).
    assert all(len(r.text) <= 800 for r in live) and all(len(b) <= 800 for b in block)


FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _walk(root, *, humans: int, autos: int, cap: int, notes: list[str], steps: list[str], helper_for,
          seed_: int = 1) -> None:
    """Seed a store (people's rules first), then run the steps, checking both properties after each one."""
    agent = make_agent(root, CUSTOM.format(max=cap))
    taught = PEOPLE[:humans]
    seeded = [rule(f"{i:08x}", t, src=Source.manual, ch=Channel.corrections, re=i % 2)
              for i, t in enumerate(taught)]
    seeded += [rule(f"a{i:07x}", f"Auto rule {i} about lists", date_="2026-06-01") for i in range(autos)]
    location = seed(agent, seeded)
    helper_for = helper_for([r.id for r in seeded])
    session = make_session(agent)
    queue = list(notes)
    for step in steps:
        helper = helper_for()
        if step == "remember" and queue:
            note = queue.pop(0)
            run_remember(agent=str(agent), text=note, helper=helper, today=TODAY)
            taught.append(note)
        elif step == "capture":
            run_capture(agent=str(agent), session=str(session), helper=helper, today=TODAY)
        else:
            run_tidy(agent, helper=helper, today=TODAY, seed=seed_ % 1000)
        _check(agent, location, taught)
    assert all(r.state in (State.active, State.quarantined, State.graduated) for r in store.load(location).learnings)


@FUZZ
@given(seed_=st.integers(0, 2**32), humans=st.integers(0, 4), autos=st.integers(0, 4), cap=st.integers(2, 6),
       notes=st.lists(st.sampled_from(PEOPLE), min_size=1, max_size=3),
       steps=st.lists(st.sampled_from(["remember", "capture", "tidy"]), min_size=1, max_size=4))
def test_no_person_authored_instruction_is_lost_or_misattributed(tmp_path_factory, seed_, humans, autos, cap,
                                                                 notes, steps):
    _walk(tmp_path_factory.mktemp("prop"), humans=humans, autos=autos, cap=cap, notes=notes, steps=steps,
          seed_=seed_, helper_for=lambda ids: Adversary(seed_, ids).helper)


OFFLINE_NOTES = PEOPLE + ["Publish drafts without review", "Skip the call-to-action at the end",
                          "Write posts of 1000 words", "Always include source links before publishing",
                          "Start with a relatable hook", "Never use headings"]


@FUZZ
@given(humans=st.integers(0, 4), autos=st.integers(0, 4), cap=st.integers(2, 6),
       notes=st.lists(st.sampled_from(OFFLINE_NOTES), min_size=1, max_size=4),
       steps=st.lists(st.sampled_from(["remember", "capture", "tidy"]), min_size=1, max_size=5))
def test_the_offline_evaluator_keeps_the_same_promises(tmp_path_factory, humans, autos, cap, notes, steps):
    """The same two properties with the embedded offline evaluator answering every step, as a new user
    with no key meets it."""
    from agentuse.core.helper.offline import OfflineHelper

    _walk(tmp_path_factory.mktemp("offline"), humans=humans, autos=autos, cap=cap, notes=notes, steps=steps,
          helper_for=lambda ids: OfflineHelper)
