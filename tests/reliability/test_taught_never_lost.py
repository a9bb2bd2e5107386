"""Stateful property (review 22e): whatever a person and the pipeline do to one agent, in any order, nothing
a person taught is lost or quietly rewritten.

A hypothesis state machine drives the public commands on one agent with the embedded offline evaluator
as the judge: `learnings add` (a note, a restatement, a sharpening, a contradiction of an earlier one), a
recorded run replayed and reviewed (`sessions resume --approve`, `--comment ... --remember`), hand edits
through `learnings --edit`, edits to the agent's own instructions, `learnings tidy`, `undo`, `discard` and
`restore`. The helper model is the offline evaluator, honest or, from a step on, answering at random with
hostile answers (class Hostile). After every step:

1. every rule a person wrote is findable by its words: in the store (in force, quarantined with a reason,
   graduated; a grounded note's own words are its evidence line), in the archive (restorable), or in the
   agent file's learned block; unless the person discarded, deleted or reworded it themselves;
2. no stored rule carries a person's authorship (src:manual / src:approval) unless its title and body
   contain some person's words;
3. the learnings file and the archive parse, and the agent file outside its learned block is what the
   person last wrote;
4. an undo straight after a tidy-up restores exactly the pre-tidy bytes of both files (and of the archive);
   reading commands and `tidy --dry-run` change no byte;
5. no command ends in a traceback: exit 0, or 1 with one error line saying why.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import snapshots, store
from agentuse.core.helper import protocol as p
from agentuse.core.helper.factory import override_helper
from agentuse.core.helper.offline import OfflineHelper
from agentuse.core.helper.operations import OPERATIONS
from agentuse.core.learned_block import find_block, read_block
from agentuse.core.learning import Category, Source, Verdict
from fakes.scripted_helper import ScriptedHelper

EXAMPLE_DIR = Path(__file__).resolve().parents[2] / "examples"
RECORDING = EXAMPLE_DIR / "sessions" / "blog-writer-tool-error.jsonl"
AGENT = (EXAMPLE_DIR / "blog-writer.agentuse").read_text().replace("max: 15", "max: 4")

# What a person says about each subject, and the ways they come back to it.
SUBJECTS = ["keep intros factual", "cite the primary source for every statistic", "use UTC timestamps in dates",
            "add a summary to every post", "write short paragraphs", "link each tool you mention"]
FORMS = {
    "note": "{s}",
    "restated": "{S}.",
    "sharpened": "{S} rather than promotional",
    "narrowed": "{S} except in product launch posts",
    "contradicted": "Never {s}",
}
INSTRUCTIONS = ["- Never cite sources in the intro", "- Keep every post under 150 words",
                "- Use local time in dates", "- Write long, flowing paragraphs"]
EDITOR = """import json, re, subprocess, sys
spec = json.load(open({spec!r}))
path = sys.argv[-1]
if spec["meanwhile"]:  # a note saved while the editor is open: the edit is merged onto it
    subprocess.run([sys.executable, "-c", "import sys; from agentuse.cli.app import main; sys.argv[1:] = "
                    + repr(["learnings", "add", spec["agent"], spec["meanwhile"]]) + "; main()"], check=True)
    open({spec!r} + ".saved", "w").close()
lines = open(path, encoding="utf-8").read().split("\\n")
meta = next((i for i, l in enumerate(lines) if "id:" + spec["id"] + " " in l), None)
if meta is None or not lines[meta - 1].startswith("### "):
    sys.exit(0)
end = next((j for j in range(meta + 1, len(lines)) if lines[j].startswith("### ")), len(lines))
while end > meta + 1 and not lines[end - 1].strip():
    end -= 1
body = [j for j in range(meta + 1, end) if not lines[j].startswith("<!--")]
if spec["op"] == "append":
    lines.insert(end, spec["text"])
elif spec["op"] == "reword":
    first = body[0] if body else end
    lines[first:end] = [spec["text"]]
elif spec["op"] == "delete":
    lines[meta - 1:end] = []
elif spec["op"] == "paste twice":  # the same rule, id and all, pasted again below itself
    lines[end:end] = [""] + lines[meta - 1:end]
elif spec["op"] == "garble":  # a slip in the metadata comment
    lines[meta] = lines[meta].replace("confidence:", "confidence:lots", 1).replace(" -->", "", 1)
open(path, "w", encoding="utf-8").write("\\n".join(lines))
"""

runner = CliRunner()
# What a hostile model puts in place of a person's words: nothing any person here ever says.
JUNK = ["Always use emojis in every heading", "Publish drafts without review", "Ignore the word limit",
        "Never mention sources at all"]


class Hostile(ScriptedHelper):
    """The offline evaluator, except while `mood` holds a seed: then each answer is, at random, the honest
    one or a hostile one over real and made-up ids (junk wording that claims to cover everything, repeats
    and folds onto unrelated rules, random verdicts). The audit stays honest: it is the spec's check of
    meaning ("what does it no longer carry"), and a model lying in it too is past what code can tell."""

    def __init__(self) -> None:
        self.honest = OfflineHelper()
        self.mood: random.Random | None = None
        super().__init__(**{op: self._answer(op) for op in OPERATIONS})

    def _answer(self, op: str):
        def answer(request):
            honest = getattr(self.honest, op)(request)
            if self.mood is None or self.mood.random() < 0.4:
                return honest
            return getattr(self, f"_{op}", lambda _request, honest: honest)(request, honest)
        return answer

    def _draft(self) -> p.Draft:
        text = self.mood.choice(JUNK)
        return p.Draft(category=self.mood.choice(list(Category)), title=text, body=text)

    def _ids(self, ids: list[str]) -> list[str]:
        return self.mood.sample(ids + ["0badc0de"], self.mood.randint(1, len(ids) + 1))

    def _ground(self, request, honest):
        return p.GroundAnswer(rule=self._draft())

    def _vet(self, request, honest):
        return p.VetAnswer(verdicts=[p.VetVerdict(id=c.id, verdict=self.mood.choice(list(Verdict)),
                                                  detail=self.mood.choice(["", f'contradicts: "{JUNK[0]}"']))
                                     for c in request.candidates])

    def _reconcile(self, request, honest):
        ids = [r.id for r in request.rules_in_force]
        if not ids:
            return honest
        action = self.mood.choice([p.ReconcileAction.repeat, p.ReconcileAction.fold])
        return p.ReconcileAnswer(action=action, replaces=self._ids(ids),
                                 merged=self._draft() if action is p.ReconcileAction.fold else None)

    def _plan_groups(self, request, honest):
        ids = [r.id for r in request.rules]
        return p.PlanAnswer(moves=[p.Move(kind=self.mood.choice(list(p.MoveKind)), ids=self._ids(ids),
                                          superseded_by=self.mood.choice([None, *ids]), reason="hostile")])

    def _rewrite_group(self, request, honest):
        return p.RewriteAnswer(rule=self._draft(), covers=[r.id for r in request.originals])

    def _rewrite_block(self, request, honest):
        return p.BlockAnswer(rules=[p.RewrittenRule(category=Category.tip, text=self._draft().body,
                                                    covers=[r.id for r in request.rules])])


def words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))


def said(rule) -> str:
    """A stored rule's words: its title, body and evidence (a grounded note keeps the reviewer's words there)."""
    return f"{rule.title} {rule.body} {rule.evidence or ''}"


def phrase(subject: int, form: str) -> str:
    s = SUBJECTS[subject]
    return FORMS[form].format(s=s, S=s[0].upper() + s[1:])


def outside_block(text: str) -> str:
    span = find_block(text)
    return text if span is None else text[:span.start_line] + text[span.after:]


class Teaching(RuleBasedStateMachine):
    """One agent in a throw-away project; `self.taught` is every text a person wrote that must stay findable."""

    tmp: pytest.TempPathFactory  # set by the test below, for every sequence
    monkeypatch: pytest.MonkeyPatch
    helper: Hostile

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(self.tmp.mktemp("taught"))
        self.agent = self.root / "blog-writer.agentuse"
        self.agent.write_text(AGENT)
        self.location = store.locate(self.agent)
        self.instructions = outside_block(AGENT)
        self.taught: set[str] = set()  # must stay findable
        self.authored: set[str] = set()  # everything a person ever wrote (for invariant 2)
        self.undoable: list[tuple[bytes | None, ...]] = []  # pre-tidy bytes, newest last
        self.log: list[str] = []
        self.edits = 0
        self.helper.mood = None  # every sequence starts with an honest model

    # ------------------------------------------------------------------ helpers

    def cli(self, *args: str, remember_undo: bool = False):
        self.log.append(" ".join(args).replace(str(self.agent), "AGENT").replace(str(RECORDING), "REC"))
        result = runner.invoke(app, [*args], catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise AssertionError(f"{args} raised {result.exception!r}\n{result.output}") from result.exception
        out = result.stdout + result.stderr
        assert "Traceback" not in out, (args, out)
        assert result.exit_code in (0, 1), (args, result.exit_code, out)
        if result.exit_code == 1:  # one actionable error line (notes beside it are their own lines)
            errors = [line for line in result.stderr.splitlines() if not line.startswith("note: ")]
            assert len(errors) == 1 and errors[0].startswith("error: "), (args, result.stderr)
        if not remember_undo:
            self.undoable.clear()
        return result

    def in_store(self):
        return store.load(self.location).learnings

    def in_archive(self):
        return store.load_archive(self.location).learnings

    def texts(self) -> list[str]:
        found = [said(r) for r in self.in_store() + self.in_archive()]
        return found + [b.text for b in read_block(self.agent.read_text()) or []]

    def story(self) -> str:
        return "\n".join(self.log)

    def teach(self, text: str) -> None:
        self.taught.add(text)
        self.authored.add(text)

    def waive(self, text: str) -> None:
        """The person themselves removed or rewrote this rule: what only it carried may go."""
        self.taught = {t for t in self.taught if not words(t) <= words(text)}

    def files(self) -> tuple[bytes | None, ...]:
        """The agent file, the learnings file and the archive, as bytes (None when absent)."""
        paths = (self.agent, self.location.store_path, self.location.archive_path)
        return tuple(path.read_bytes() if path.exists() else None for path in paths)

    # ------------------------------------------------------------------ what a person does

    @initialize()
    def chdir(self) -> None:
        self.monkeypatch.chdir(self.root)  # runs write their posts under the project

    @rule(seed=st.none() | st.integers(0, 2**16))
    def model_turns(self, seed: int | None) -> None:
        """From here on the helper model answers honestly (None) or, at random, with hostile answers."""
        self.helper.mood = None if seed is None else random.Random(seed)
        self.log.append(f"model: {'honest' if seed is None else f'hostile {seed}'}")

    @rule(subject=st.integers(0, len(SUBJECTS) - 1), form=st.sampled_from(sorted(FORMS)))
    def add(self, subject: int, form: str) -> None:
        text = phrase(subject, form)
        if self.cli("learnings", "add", str(self.agent), text).exit_code == 0:
            self.teach(text)

    @rule(verdict=st.sampled_from(["approve", "approve+remember", "comment+remember", "reject+remember"]), subject=st.integers(0, len(SUBJECTS) - 1),
          form=st.sampled_from(sorted(FORMS)))
    def run_and_review(self, verdict: str, subject: int, form: str) -> None:
        run = self.cli("run", str(self.agent), "Write a post", "--model", f"replay:{RECORDING}")
        found = re.search(r"session (01[0-9A-Z]{24})", run.stdout)
        assert found, run.stdout
        text = phrase(subject, form)
        review = {"approve": ["--approve"], "approve+remember": ["--approve", "--remember", text],
                  # the recording has no reply for a revision: the note is saved, then the revision fails
                  "comment+remember": ["--comment", "Please revise", "--remember", text],
                  "reject+remember": ["--reject", "--remember", text]}[verdict]
        resumed = self.cli("sessions", "resume", found.group(1), *review)
        if "--remember" in review and "[Learning]" in resumed.stdout:
            self.teach(text)

    @rule(op=st.sampled_from(["append", "reword", "delete", "paste twice", "garble"]), pick=st.integers(0, 20),
          subject=st.integers(0, len(SUBJECTS) - 1), form=st.sampled_from(sorted(FORMS)),
          meanwhile=st.none() | st.tuples(st.integers(0, len(SUBJECTS) - 1), st.sampled_from(sorted(FORMS))))
    def hand_edit(self, op: str, pick: int, subject: int, form: str, meanwhile: tuple[int, str] | None) -> None:
        rules = self.in_store()
        if not rules:
            return
        target = rules[pick % len(rules)]
        text = phrase(subject, form) + " when the post is a list."
        self.edits += 1
        spec = self.root / f"edit{self.edits}.json"
        noted = meanwhile and phrase(*meanwhile) + " on weekends"  # its own words: findable apart from the edit's
        spec.write_text(json.dumps({"op": op, "id": target.id, "text": text, "agent": str(self.agent),
                                    "meanwhile": noted}))
        script = self.root / f"editor{self.edits}.py"
        script.write_text(EDITOR.format(spec=str(spec)))
        self.monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
        self.monkeypatch.delenv("VISUAL", raising=False)
        edited = self.cli("learnings", str(self.agent), "--edit")
        if noted and Path(f"{spec}.saved").exists():
            self.teach(noted)  # saved by its own command while the editor was open
        if edited.exit_code == 0 and op in ("append", "reword", "delete"):
            if op != "append":
                self.waive(f"{target.title} {target.body}")
            if op != "delete":
                self.teach(text)

    @rule(line=st.sampled_from(INSTRUCTIONS))
    def edit_instructions(self, line: str) -> None:
        text = self.agent.read_text()
        at = text.index("- End with a clear call-to-action")
        text = text[:at] + line + "\n" + text[at:]
        self.agent.write_text(text)
        self.instructions = outside_block(text)
        self.undoable.clear()

    @rule(pick=st.integers(0, 20), subject=st.integers(0, len(SUBJECTS) - 1), form=st.sampled_from(sorted(FORMS)))
    def reword_a_permanent_rule(self, pick: int, subject: int, form: str) -> None:
        """The person changes a bullet of the learned block by hand: their wording is what tidy works from."""
        text = self.agent.read_text()
        block = read_block(text) or []
        if not block:
            return
        old = block[pick % len(block)]
        new = phrase(subject, form) + " in every newsletter."
        line = f"- [{old.category.value}] {old.text}\n"
        assert line in text, (line, text)
        self.agent.write_text(text.replace(line, f"- [{old.category.value}] {new}\n", 1))
        self.waive(old.text)
        self.teach(new)
        self.undoable.clear()

    @rule(command=st.sampled_from(["learnings tidy AGENT --dry-run", "learnings AGENT", "learnings AGENT --json",
                                   "doctor AGENT", "learnings stats AGENT"]))
    def look(self, command: str) -> None:
        """Reading, or a dry run, writes nothing."""
        before = self.files()
        self.cli(*[str(self.agent) if word == "AGENT" else word for word in command.split()], remember_undo=True)
        assert self.files() == before, self.story()

    @rule()
    def tidy(self) -> None:
        before = self.files()
        newest = snapshots.latest(self.location)
        result = self.cli("learnings", "tidy", str(self.agent), remember_undo=True)
        if result.exit_code == 0 and snapshots.latest(self.location) != newest:
            self.undoable.append(before)
        elif result.exit_code != 0:
            self.undoable.clear()

    @rule()
    def tidy_then_undo(self) -> None:
        self.tidy()
        if self.undoable:
            self.undo()

    @rule()
    def undo(self) -> None:
        expected = self.undoable.pop() if self.undoable else None
        result = self.cli("learnings", "undo", str(self.agent), remember_undo=True)
        if expected is not None:
            assert result.exit_code == 0, result.output
            assert self.files() == expected, self.log
        else:
            self.undoable.clear()

    @rule(pick=st.integers(0, 20))
    def discard(self, pick: int) -> None:
        rules = self.in_store()
        if not rules:
            return
        target = rules[pick % len(rules)]
        if self.cli("learnings", "discard", str(self.agent), target.id).exit_code == 0:
            self.waive(f"{target.title} {target.body}")

    @rule(pick=st.integers(0, 20))
    def restore(self, pick: int) -> None:
        archived = self.in_archive()
        if not archived:
            return
        target = archived[pick % len(archived)]
        if self.cli("learnings", "restore", str(self.agent), target.id).exit_code == 0:
            restored = words(f"{target.title} {target.body}")
            self.taught |= {t for t in self.authored if words(t) <= restored}

    # ------------------------------------------------------------------ invariants

    @invariant()
    def files_parse_and_instructions_are_the_persons(self) -> None:
        store.load(self.location)
        store.load_archive(self.location)
        assert outside_block(self.agent.read_text()) == self.instructions, self.story()

    @invariant()
    def nothing_taught_is_lost(self) -> None:
        found = [words(t) for t in self.texts()]
        lost = [t for t in self.taught if not any(words(t) <= w for w in found)]
        assert not lost, f"lost {lost}\n{self.story()}"

    @invariant()
    def a_person_signs_only_their_own_words(self) -> None:
        for r in self.in_store() + self.in_archive():
            if r.src in (Source.manual, Source.approval):
                own = words(f"{r.title} {r.body}")  # the words in force, not the evidence line
                assert any(words(t) <= own for t in self.authored), f"signed {r!r}\n{self.story()}"


# Explore with many more, e.g. AGENTUSE_TAUGHT_EXAMPLES=300 AGENTUSE_TAUGHT_STEPS=30 AGENTUSE_TAUGHT_RANDOM=1
# (how it was hunted: see the review 22e report); committed, a derandomised budget of seconds.
EXAMPLES = int(os.environ.get("AGENTUSE_TAUGHT_EXAMPLES", 30))
STEPS = int(os.environ.get("AGENTUSE_TAUGHT_STEPS", 15))


def test_nothing_taught_is_lost_or_rewritten(tmp_path_factory, monkeypatch):
    Teaching.tmp, Teaching.monkeypatch, Teaching.helper = tmp_path_factory, monkeypatch, Hostile()
    with override_helper(Teaching.helper):
        run_state_machine_as_test(Teaching, settings=settings(
            max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, database=None,
            derandomize=not os.environ.get("AGENTUSE_TAUGHT_RANDOM"), suppress_health_check=list(HealthCheck)))
