"""`agentuse learnings <agent> --edit`: a person edits a copy of the store, never the store itself.

The editor may stay open for as long as the person likes, and meanwhile a run counts an injection or a
capture adds a rule. Writing the edited text over the store would throw those away, and an editor saving
in place would do it before anyone could look. So the person edits a copy (beside the agent's other state,
not in `learnings/`), and when the editor closes the copy is read back, under the store's lock:

- the store did not change meanwhile: the copy becomes the store, byte for byte as typed;
- it changed: the edit is merged onto it (core/store_merge.py): rules added meanwhile are kept, counts
  recorded meanwhile land on the edited rules by id; a rule the person edited or deleted that changed
  meanwhile is a conflict, and nothing is written;
- a rule's title or body holds a credential (core/redact.py): it is stored with `***` in its place, as every
  stamped rule is, and `redacted_lines` says so: a rule reaches every model request and can graduate into
  the committed agent file;
- the copy does not parse, or conflicts: the store is left as it is, and the copy stays where it is, its
  path in the error, so nothing the person typed is lost.

A rule deleted in the editor is not deleted: it goes to the archive, as `learnings discard` files it
(core/discard.py), before the store is written, and `archived_lines` names each one and how to restore
it. An editor that saved an empty buffer archives every rule that way, and the lines say so first.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel

from agentuse.core import store, store_merge
from agentuse.core.clip import clip
from agentuse.core.errors import AgentuseError
from agentuse.core.file_access import FileAccessError, make_folder, read_optional, read_regular
from agentuse.core.learning import Learning, State, one_line
from agentuse.core.redact import redact_texts
from agentuse.core.store_format import StoreDoc, StoreFormatError, parse, render
from agentuse.core.terminal_text import shell_word

NOTE_SHOWN = 120  # characters of a joined paragraph the command quotes
EDIT_REASON = "removed in learnings --edit"  # the archive's reason, beside discard's "discarded by hand"


class EditRefused(AgentuseError):
    """The edited copy was not written into the store; it is kept, and the message says where."""


class Joined(BaseModel):
    """A paragraph the edit added at the end of a rule's body: likely a note typed below the rule, which
    the format reads as part of it (everything up to the next heading is the body)."""

    rule: Learning
    text: str


# A paragraph of its own: after a blank line, or, in a rule whose title is the rule (no body), after the
# blank line below its metadata comment (a body is written right under it).
_AFTER_BODY = re.compile(r"[ \t]*\n[ \t]*\n")
_AFTER_META = re.compile(r"\n")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def _lf(text: str) -> str:
    """Line ends as LF: an editor set to CRLF changes no rule's words."""
    return text.replace("\r\n", "\n")


def _words(text: str) -> str:
    # Words only, as core/screen.text_key reads them; that module would load the offline evaluator into --edit.
    return " ".join(re.findall(r"\w+", text.casefold()))


def joined_paragraphs(before: list[Learning], after: list[Learning]) -> list[Joined]:
    """The rules `after` whose body gained a paragraph at its end: their body `before` plus one, or, in a
    body reworded too, a last paragraph none of which it held before (a paragraph split off is no note)."""
    old = {r.id: _lf(r.body) for r in before}
    found = []
    for rule in after:
        body, now = old.get(rule.id), _lf(rule.body)
        if body is None:
            continue
        if now.startswith(body):
            added = now[len(body):]
            if added.strip() and (_AFTER_BODY if body else _AFTER_META).match(added):
                found.append(Joined(rule=rule, text=added.strip()))
            continue
        *head, last = _PARAGRAPH_BREAK.split(now)
        if head and last.strip() and _words(last) not in _words(body):
            found.append(Joined(rule=rule, text=last.strip()))
    return found


def unstamp_reworded(before: list[Learning], after: list[Learning]) -> list[Learning]:
    """Active or quarantined rules `after` whose title or body differ from theirs `before` lose their
    instruction hash (and any offline mark): the stamp says what the rule's words were checked against, and
    these words were not. An active rule with no hash still applies (spec: as one captured before hashes
    existed); the next capture or tidy-up vets and stamps it, and re-vets a quarantined one, releasing it
    if it passes now. The rules changed so, in `after`."""
    old = {r.id: r for r in before}
    changed = []
    for rule in after:
        was = old.get(rule.id)
        if (was is not None and rule.state in (State.active, State.quarantined) and (rule.ih or rule.vet)
                and (rule.title, _lf(rule.body)) != (was.title, _lf(was.body))):
            rule.ih, rule.vet = None, None
            changed.append(rule)
    return changed


def redact_rules(rules: list[Learning]) -> list[Learning]:
    """Each rule whose title, body, reason or evidence held a credential replaced, in `rules`, by a copy with
    `***` in its place (a new record, so the store renders it rather than copying the text as read); those."""
    changed = []
    for index, rule in enumerate(rules):
        texts = [rule.title, rule.body, rule.why, rule.evidence]
        title, body, why, evidence = redact_texts(*texts)
        if [title, body, why, evidence] != texts:
            rules[index] = rule.model_copy(update={"title": title, "body": body, "why": why, "evidence": evidence})
            changed.append(rules[index])
    return changed


class Outcome(BaseModel):
    changed: bool = False  # the store was written
    merged: bool = False  # ...onto changes made while the editor was open
    kept_added: int = 0  # rules added meanwhile, kept beside the edit
    archived: list[Learning] = []  # rules the edit removed, as they were in the store: now in the archive
    emptied: bool = False  # the editor saved nothing at all
    joined: list[Joined] = []  # paragraphs the edit added below a rule: part of its body now
    reworded: list[Learning] = []  # rules whose words the edit changed: unstamped, vetted by the next pass
    redacted: list[Learning] = []  # rules that held a credential, stored with *** in its place


def _read(path: Path) -> bytes | None:
    return read_optional(path, "learnings file")


def begin(location: store.AgentLocation) -> tuple[Path, bytes]:
    """The copy to open in the editor and the store's bytes it starts from (an empty store is created)."""
    store.settle(location)
    with store.lock_for(location.store_path):
        baseline = _read(location.store_path)
        if baseline is None:
            baseline = render(store.load(location, settled=True)).encode("utf-8")
            store.atomic_write(location.store_path, baseline)
    stem = location.key.removesuffix(store.AGENT_SUFFIX)
    stamp = f"{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{secrets.token_hex(2)}"
    copy = location.project_dir / "edits" / f"{stem}.{stamp}{store.STORE_SUFFIX}"
    make_folder(copy.parent)
    store.atomic_write(copy, baseline)
    return copy, baseline


class Earlier(BaseModel):
    """The other copies of this agent's store found in edits/ as an edit begins."""

    unsaved: list[Path]  # never written in (refused, or killed while the editor was open): what was typed
    removed: list[Path]  # held nothing the store does not: written in by an edit killed before removing it


def earlier_copies(copy: Path, baseline: bytes) -> Earlier:
    """Sort the earlier copies beside `copy` against the store's bytes as this edit opens (`baseline`). A
    copy whose rules the store holds as they are there (`_rules`) was saved by an edit killed
    between writing the store and removing its copy, or never changed: calling it "never saved" would send
    the person to redo an edit that is in force, so it is removed. Any other copy is kept and named."""
    stem = copy.name.removesuffix(store.STORE_SUFFIX).rsplit(".", 1)[0]  # `begin` names it <stem>.<stamp><suffix>
    pattern = re.compile(rf"^{re.escape(stem)}\.\d{{8}}T\d{{6}}-[0-9a-f]{{4}}{re.escape(store.STORE_SUFFIX)}$")
    found = sorted(p for p in copy.parent.iterdir() if p != copy and pattern.match(p.name))
    earlier = Earlier(unsaved=[], removed=[])
    held = _rules(baseline)
    for path in found:
        if held is not None and _rules(_read(path)) == held:
            try:
                path.unlink()
                earlier.removed.append(path)
                continue
            except OSError:
                pass  # left where it is, and named as any other copy
        earlier.unsaved.append(path)
    return earlier


# What a saved edit does not decide: the count every run moves, and the stamp `finish` takes off a reworded rule.
_NOT_TYPED = {"injected", "ih", "vet"}


def _rules(data: bytes | None) -> list[str] | None:
    """A store's rules as an edit's outcome is judged: everything a person types into one, line ends aside.
    A copy that differs in anything else (a category, an unknown token) is kept: what was typed is never
    thrown away on a guess."""
    try:
        doc = parse((data or b"").decode("utf-8-sig"), include_retired=True)
    except (StoreFormatError, UnicodeDecodeError):
        return None
    return sorted(r.model_copy(update={"body": _lf(r.body)}).model_dump_json(exclude=_NOT_TYPED) for r in doc.learnings)


def _kept(copy: Path) -> str:
    return f"Your edit is kept at {copy}"


def finish(location: store.AgentLocation, copy: Path, baseline: bytes) -> Outcome:
    """Write the edited copy into the store (module docstring); the copy is removed once it is in."""
    edited = _read_copy(location, copy)
    if edited == baseline:
        copy.unlink()
        return Outcome()
    try:
        mine = parse(edited.decode("utf-8-sig"), filename=str(copy))
    except (StoreFormatError, UnicodeDecodeError) as broken:
        raise EditRefused(f"{broken}. Nothing was written to {location.store_path}. {_kept(copy)}: fix it "
                          "there and run --edit again to redo the change.") from None
    emptied = not edited.strip()
    opened = _readable(location, baseline)
    redacted = redact_rules(mine.learnings)
    reworded = unstamp_reworded(opened, mine.learnings)
    store.settle(location)
    with store.lock_for(location.store_path):
        now = _read(location.store_path)
        if now == baseline:
            removed = _archive_removed(location, opened, mine.learnings, copy=copy)
            # As typed, byte for byte, unless a reworded rule's stamp or a credential has to go.
            store.atomic_write(location.store_path,
                               _with_defaults(mine, location) if reworded or redacted else edited)
            copy.unlink()
            return Outcome(changed=True, archived=removed, emptied=emptied, reworded=reworded,
                           joined=joined_paragraphs(opened, mine.learnings), redacted=redacted)
        start = _parse(location, baseline)
        theirs = _parse(location, now)
        try:
            merged = store_merge.merge(start.learnings, mine.learnings, theirs.learnings)
        except store_merge.MergeConflict as conflict:
            raise EditRefused(f"The learnings changed while the editor was open ({conflict.names()}), so "
                              f"nothing was written. {_kept(copy)}: run --edit again and redo the change.") from None
        doc = mine.model_copy(update={"learnings": merged})
        removed = _archive_removed(location, theirs.learnings, merged, copy=copy)
        store.atomic_write(location.store_path, _with_defaults(doc, location))
    copy.unlink()
    before = {r.id for r in start.learnings}
    return Outcome(changed=True, merged=True, kept_added=sum(1 for r in theirs.learnings if r.id not in before),
                   archived=removed, emptied=emptied, joined=joined_paragraphs(start.learnings, mine.learnings),
                   reworded=reworded, redacted=redacted)


def _with_defaults(doc: StoreDoc, location: store.AgentLocation) -> str:
    """The doc rendered, its header filled in where the edit left it out."""
    return render(doc.model_copy(update={"name": doc.name or location.name,
                                         "agent": doc.agent or location.breadcrumb}))


def _read_copy(location: store.AgentLocation, copy: Path) -> bytes:
    """The copy as the editor left it. An editor may delete it, or leave something else at its path: then
    there is no edit to merge, and the store is not touched."""
    try:
        return read_regular(copy, "learnings file")
    except FileNotFoundError:
        raise EditRefused(f"the editor left no file at {copy}: nothing was written to {location.store_path}") from None
    except FileAccessError as odd:
        raise EditRefused(f"{odd}; nothing was written to {location.store_path}") from None


def _readable(location: store.AgentLocation, baseline: bytes) -> list[Learning]:
    """The rules the store held when the editor opened. A store that did not parse is what --edit repairs:
    it offered no rule to remove, and the repaired text is written as typed, as before."""
    try:
        return _parse(location, baseline).learnings
    except (StoreFormatError, UnicodeDecodeError):
        return []


def _archive_removed(location: store.AgentLocation, now: list[Learning], written: list[Learning], *,
                     copy: Path) -> list[Learning]:
    """Archive the rules in the store `now` that the store about to be `written` no longer holds. Before
    the store is written, under its lock, as discard does: a crash in between leaves a rule in both."""
    kept = {r.id for r in written}
    removed = [r for r in now if r.id not in kept]
    try:
        store.archive(location, removed, reason=EDIT_REASON)
    except StoreFormatError as broken:  # never appended to an archive it cannot read
        raise EditRefused(f"{broken}. The rules you removed could not be archived there, so nothing was written "
                          f"to {location.store_path}. {_kept(copy)}: fix the archive and run --edit again.") from None
    return removed


def archived_lines(outcome: Outcome, location: store.AgentLocation, *, agent_arg: str) -> list[str]:
    """What the command says about the rules the edit archived: how many, where, each one, how to undo."""
    rules = outcome.archived
    if not rules:
        return []
    where = f"not deleted: {location.archive_path}"
    if outcome.emptied:
        head = f"The edited file was empty: all {len(rules)} rules were archived, {where}"
    else:
        head = f"Archived {len(rules)} rule{'s' if len(rules) != 1 else ''} removed in the editor, {where}"
    return [head, *(f'  "{r.title}" (id:{r.id})' for r in rules),
            f"Put one back with: agentuse learnings restore {shell_word(agent_arg)} <id>"]


def reworded_lines(outcome: Outcome, *, agent_arg: str) -> list[str]:
    """What the command says about the rules whose words the edit changed (`unstamp_reworded`)."""
    meanwhile = {State.active: "It applies as you wrote it", State.quarantined: "It stays quarantined until then"}
    return [f'Reworded by hand: "{r.title}" (id:{r.id}). {meanwhile[r.state]}; the next capture or tidy-up vets it '
            f"against the instructions (agentuse learnings tidy {shell_word(agent_arg)})." for r in outcome.reworded]


def redacted_lines(outcome: Outcome) -> list[str]:
    """What the command says about each rule whose credential was replaced (`redact_rules`)."""
    return [f'A credential in "{r.title}" (id:{r.id}) was replaced by ***: a rule is sent with every model '
            "request and can graduate into the agent file, which is committed. Keep the secret in an environment "
            "variable; a command the agent runs gets it when the agent file names it (shell_env: [NAME])."
            for r in outcome.redacted]


def joined_lines(outcome: Outcome) -> list[str]:
    """What the command says about each paragraph the edit added below a rule (`Joined`)."""
    return [f'note: the text you added below "{j.rule.title}" (id:{j.rule.id}) is part of that rule now and '
            f'reaches the agent with it: "{clip(one_line(j.text), NOTE_SHOWN)}". Everything under a rule\'s '
            'heading, up to the next "### [category]" heading, is that rule; a note for yourself does not '
            'belong in this file: run --edit again and take it out.' for j in outcome.joined]


def _parse(location: store.AgentLocation, data: bytes | None) -> StoreDoc:
    if data is None:  # deleted meanwhile: every rule the edit changed is then a conflict
        return StoreDoc(name=location.name)
    return parse(data.decode("utf-8-sig"), filename=str(location.store_path))
