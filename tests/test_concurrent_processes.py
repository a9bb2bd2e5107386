"""Two agentuse processes on one agent's files at the same moment, and a process killed between two writes,
driven for real: each command is its own `agentuse` process, and the interleaving is lined up without
sleeps: a lock the test itself holds stops commands at that lock (each says `waiting for ...` once it
waits, which is when the test lets go), the fake Messages API holds one answer back while another command
runs, and strace kills a command at its n-th rename. Nothing here asserts a duration."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from capture_support import make_agent, rule, seed
from strace_kills import COMMAND, agentuse, killed_at_rename, needs_strace

from agentuse.core import store
from agentuse.core.store_format import parse

CAPPED = "learning:\n  capture: true\n  apply: true\n  max: 2"


def edit_with(tmp_path: Path, monkeypatch, agent: Path, sed: str) -> None:
    """`agentuse learnings <agent> --edit`, the editor a sed expression run over the copy."""
    editor = tmp_path / "edit.sh"
    editor.write_text(f'#!/bin/sh\nsed -i "{sed}" "$1"\n')
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    agentuse("learnings", agent, "--edit")


def _entries(path: Path):
    return parse(path.read_text(), include_retired=True).learnings if path.exists() else []


@needs_strace
def test_a_note_whose_trade_was_killed_after_archiving_files_the_traded_rule_once_when_run_again(tmp_path):
    agent = make_agent(tmp_path / "p", CAPPED)
    location = seed(agent, [rule("aaaa1111", "Use bullet lists for steps", date_="2026-01-01"),
                            rule("bbbb2222", "Mention the reading time at the top", date_="2026-01-01")])
    note = "Always end with a question to the reader"
    # The trade writes the archive (rename 1), then the store (rename 2): killed at the second one.
    first = agentuse("learnings", "add", agent, note, before=killed_at_rename(2), check=False)
    assert first.returncode == -9 or first.returncode == 137, (first.stdout, first.stderr)
    assert [r.id for r in _entries(location.archive_path)] == ["aaaa1111"]
    assert "aaaa1111" in [r.id for r in store.load(location).learnings]  # in both files: the kill point

    again = agentuse("learnings", "add", agent, note)
    assert "Retired \"Use bullet lists for steps\" to make room" in again.stdout
    assert [r.id for r in _entries(location.archive_path)] == ["aaaa1111"], location.archive_path.read_text()
    now = store.load(location).learnings
    assert "aaaa1111" not in [r.id for r in now] and [r.title for r in now].count(note) == 1


def test_a_command_held_at_a_lock_says_whose_lock_it_waits_for_and_goes_on_once_it_is_released(tmp_path):
    import fcntl

    agent = make_agent(tmp_path / "p", CAPPED)
    location = seed(agent, [rule("aaaa1111", "Use bullet lists for steps")])
    held = os.open(f"{location.store_path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(held, fcntl.LOCK_EX)  # as a writer in another process holds it (a stopped one, a slow disk)
    try:
        waiting = subprocess.Popen([*COMMAND, "learnings", "add", str(agent), "Keep each tip under fifty words"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
        said = []
        for line in waiting.stderr:  # blocks until the command says something (or ends)
            said.append(line)
            if line.startswith("waiting for "):
                break
        assert said and said[-1].startswith(f"waiting for {location.store_path}.lock: another agentuse process"), said
        assert waiting.poll() is None  # still waiting: the lock is still held
    finally:
        fcntl.flock(held, fcntl.LOCK_UN)
        os.close(held)
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, (out, err)
    assert "Keep each tip under fifty words" in [r.title for r in store.load(location).learnings]


def _pass_quarantining(location: store.AgentLocation, rule_id: str) -> None:
    """A pass that rewrites rules (capture's re-vet, as `snapshots.store_pass` runs it): one undo."""
    from agentuse.core import snapshots
    from agentuse.core.learning import State

    with snapshots.store_pass(location, kind="capture re-vet") as work:
        for learning in work.doc.learnings:
            if learning.id == rule_id:
                learning.state, learning.why = State.quarantined, 'contradicts the contract: "x"'
        work.summary = "capture re-vet: 1 quarantined"


def _start(*args: object) -> subprocess.Popen:
    return subprocess.Popen([*COMMAND, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=os.environ.copy())


def _until_waiting(process: subprocess.Popen) -> list[str]:
    said = []
    for line in process.stderr:
        said.append(line)
        if line.startswith("waiting for "):
            break
    return said


def _all_through_the_commit_lock(location, *commands: tuple) -> list[tuple[int, str, str]]:
    """Start `commands` while the tidy-up commit's lock is held here (as another process's commit holds it),
    let go once each says it is waiting there, and return how each ended (exit code, stdout, stderr)."""
    import fcntl

    from agentuse.core import snapshots

    held = os.open(f"{snapshots.tidy_lock_path(location)}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        started = [_start(*command) for command in commands]
        for process in started:
            said = _until_waiting(process)
            assert said and said[-1].startswith("waiting for "), said
    finally:
        fcntl.flock(held, fcntl.LOCK_UN)
        os.close(held)
    return [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in started]


def test_two_undos_at_once_undo_the_two_newest_passes_one_each(tmp_path):
    from agentuse.core import snapshots

    agent = make_agent(tmp_path / "p", CAPPED)
    location = seed(agent, [rule("aaaa1111", "Use bullet lists for steps"),
                            rule("bbbb2222", "Mention the reading time at the top")])
    original = location.store_path.read_bytes()
    _pass_quarantining(location, "aaaa1111")
    _pass_quarantining(location, "bbbb2222")
    assert len(snapshots.listing(location)) == 2
    # Both undos choose what to undo, then meet at the commit's lock, held here until both wait there.
    ended = _all_through_the_commit_lock(location, *[("learnings", "undo", agent)] * 2)
    assert [code for code, _, _ in ended] == [0, 0], ended
    assert location.store_path.read_bytes() == original and snapshots.listing(location) == []


RECORDING = Path(__file__).resolve().parents[1] / "examples" / "sessions" / "blog-writer-tool-error.jsonl"


def test_an_approval_given_after_a_rule_in_force_was_folded_away_credits_the_rule_that_carries_it(tmp_path):
    """A gate can wait for hours; meanwhile a tidy-up or a note folds the rules its run had in force into a
    new one. The approval is still a vote for them (spec: What makes a learning permanent), so it lands on
    the rule that carries them now, as counts recorded during a tidy-up do."""
    import re

    from capture_support import current_ih

    from agentuse.core.learning import Channel, Source

    agent = make_agent(tmp_path / "p", "approval: true\nlearning: true")
    (agent.parent / "posts").mkdir()
    location = seed(agent, [rule("a1b2c3d4", "Keep intros factual", src=Source.manual, ch=Channel.corrections,
                                 ih=current_ih(agent))])
    run = agentuse("run", agent, "Write a post", "--model", f"replay:{RECORDING}")
    assert "awaiting review" in run.stdout
    sid = re.search(r"session (01[0-9A-HJKMNP-TV-Z]{24})", run.stdout).group(1)
    [injected] = store.load(location).learnings
    assert (injected.id, injected.injected) == ("a1b2c3d4", 1)

    folded = agentuse("learnings", "add", agent, "Keep intros factual rather than promotional")
    assert 'Replaced an earlier rule: "Keep intros factual"' in folded.stdout
    [carrier] = store.load(location).learnings
    assert carrier.id != "a1b2c3d4" and carrier.ok == 0

    agentuse("sessions", "resume", sid, "--approve")
    [after] = store.load(location).learnings
    assert (after.id, after.ok) == (carrier.id, 1)
    agentuse("sessions", "resume", sid, "--approve", check=False)  # answered already: credits nothing again
    assert store.load(location).learnings[0].ok == 1


def test_a_rule_edited_while_captures_re_vet_is_asked_about_it_is_not_stamped_with_the_verdict_on_its_old_words(
        tmp_path, fake_anthropic, monkeypatch):
    """The re-vet's verdict is on the words it sent. A person who rewrote the rule in `learnings --edit`
    while the call was out has words no vet saw: they stay unvetted (with no stamp, vetted by the next
    capture or tidy-up), never stamped as checked against the current instructions."""
    import threading

    from fakes import tool_use

    from capture_support import current_ih, make_session

    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    addons: [tool-errors]\n  max: 15")
    location = seed(agent, [rule("aaaa1111", "Save posts under posts/ with a slug", ih="0ld0ld0ld0l")])
    session = make_session(agent)
    asked, answer = threading.Event(), threading.Event()

    def held_vet(request):
        asked.set()
        assert answer.wait(60)
        return tool_use("submit_vet", {"verdicts": [{"id": "aaaa1111", "verdict": "pass", "detail": ""}]})

    fake_anthropic.script(default=held_vet)
    for key, value in fake_anthropic.env().items():
        monkeypatch.setenv(key, value)
    capture = _start("learnings", "capture", agent, "--session", session)
    try:
        assert asked.wait(60), "the capture never asked to re-vet the stale rule"
        edit_with(tmp_path, monkeypatch, agent, "s/with a slug/and publish them without review/")
        assert store.load(location).learnings[0].title == "Save posts under posts/ and publish them without review"
    finally:
        answer.set()
    out, err = capture.communicate(timeout=120)
    assert capture.returncode == 0, (out, err)
    [now] = store.load(location).learnings
    assert now.title == "Save posts under posts/ and publish them without review"
    assert now.ih != current_ih(agent), "stamped as vetted on words the vet never saw"
    # --edit takes the stamp off a rule whose words a person changed (the next capture or tidy-up vets it), so
    # the edited rule is one with no instruction hash now, not a stale one.
    assert now.ih is None
    assert ("1 learning(s) with no instruction hash were edited while the vet was asked about them; they keep "
            "injecting until a later capture or tidy backfills them") in out, out


def test_a_pass_that_never_wrote_the_agent_file_can_be_undone_after_the_agent_file_is_edited(tmp_path):
    """The spec's fix for a quarantined rule is to correct the agent file; undoing the pass that quarantined
    it afterwards must not refuse over that edit: the pass never wrote the agent file, so undo does not
    touch it, and the edit stays as it is."""
    from agentuse.core import snapshots

    agent = make_agent(tmp_path / "p", CAPPED)
    location = seed(agent, [rule("aaaa1111", "Use bullet lists for steps")])
    original = location.store_path.read_bytes()
    _pass_quarantining(location, "aaaa1111")
    edited = agent.read_text().replace("Start with a relatable hook", "Start with a question")
    agent.write_text(edited)
    agentuse("learnings", "undo", agent)
    assert location.store_path.read_bytes() == original and snapshots.listing(location) == []
    assert agent.read_text() == edited


def test_one_note_given_twice_at_once_is_one_rule_repeated_not_two_copies(tmp_path):
    """Both notes are planned against a store that holds neither, then written one after the other: the
    second is the first one repeated (re:1, the spec's signal that the wording is not landing), as it is
    when the two are given one after the other, never a second copy taking a slot of the cap."""

    agent = make_agent(tmp_path / "p", CAPPED)
    location = seed(agent, [])
    note = "Always end with a question to the reader"
    # Both notes wait to be written, each planned on its own read.
    ended = _all_through_the_commit_lock(location, *[("learnings", "add", agent, note)] * 2)
    assert [code for code, _, _ in ended] == [0, 0], ended
    [kept] = store.load(location).learnings
    assert (kept.title, kept.re) == (note, 1)
    assert sorted(out.splitlines()[0].split(" ")[1] for _, out, _ in ended) == ["Repeated", "Saved"], ended


def test_a_tidy_up_whose_re_vet_a_capture_made_too_meanwhile_commits(tmp_path, fake_anthropic, monkeypatch):
    """After an edit of the agent file, a scheduled tidy-up and a run's capture both re-vet the stale rules.
    When the capture's re-vet lands first and says what the tidy-up's says, nothing conflicts: the tidy-up
    commits (it used to throw its whole work away: '"..." edited meanwhile ... Run the tidy-up again')."""
    import re
    import threading

    from fakes import tool_use

    from capture_support import current_ih, make_session

    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    addons: [tool-errors]\n  max: 15")
    location = seed(agent, [rule("aaaa1111", "Save posts under posts/ with a slug", ih="0ld0ld0ld0l")])
    session = make_session(agent)
    tidy_asked, answer = threading.Event(), threading.Event()

    def reply(request):
        tool = request.forced_tool
        if tool == "submit_vet":
            if not tidy_asked.is_set():  # the tidy-up's re-vet, the first request: held
                tidy_asked.set()
                assert answer.wait(60)
            ids = re.findall(r'<candidate id="([^"]+)"', request.text)
            return tool_use(tool, {"verdicts": [{"id": i, "verdict": "pass", "detail": ""} for i in ids]})
        return tool_use(tool, {"moves": []} if "plan" in tool else {})

    fake_anthropic.script(default=reply)
    for key, value in fake_anthropic.env().items():
        monkeypatch.setenv(key, value)
    tidy = _start("learnings", "tidy", agent)
    try:
        assert tidy_asked.wait(60), "the tidy-up never re-vetted the stale rule"
        agentuse("learnings", "capture", agent, "--session", session)  # re-vets it too, and lands first
        assert store.load(location).learnings[0].ih == current_ih(agent)
    finally:
        answer.set()
    out, err = tidy.communicate(timeout=120)
    assert tidy.returncode == 0, (out, err)
    [now] = store.load(location).learnings
    assert (now.id, now.ih) == ("aaaa1111", current_ih(agent))


def test_a_tidy_up_retiring_a_rule_a_capture_drained_meanwhile_commits_and_archives_it_once(
        tmp_path, fake_anthropic, monkeypatch):
    """An over-cap agent: a scheduled tidy-up plans to retire its weakest rule while a run's capture drains
    the same rule over the cap. Both removed it; nothing conflicts, so the tidy-up commits (it threw its work
    away: '"..." edited meanwhile'), and the rule is in the archive once, as the drain filed it."""
    import threading

    from fakes import tool_use

    from capture_support import current_ih, make_session

    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    addons: [tool-errors]\n  max: 2")
    ih = current_ih(agent)
    location = seed(agent, [rule(f"{n}{n}{n}{n}1111", title, date_=f"2026-01-0{5 - n}", ih=ih)
                            for n, title in ((1, "Use bullet lists for steps"), (2, "Mention the reading time"),
                                             (3, "Link every source you cite"), (4, "Use bullet lists"))])
    session = make_session(agent)
    planned, answer = threading.Event(), threading.Event()

    def reply(request):
        tool = request.forced_tool
        if tool == "submit_plan_groups":
            first = not planned.is_set()
            planned.set()
            if first:  # the tidy-up's first plan: held while the capture drains
                assert answer.wait(60)
                return tool_use(tool, {"moves": [{"kind": "retire", "ids": ["44441111"], "superseded_by": "11111111",
                                                  "reason": "the bullet-list rule says it"}]})
            return tool_use(tool, {"moves": []})
        if tool == "submit_audit":
            return tool_use(tool, {"missing": []})
        return tool_use(tool, {"verdicts": []} if tool == "submit_vet" else {})

    fake_anthropic.script(default=reply)
    for key, value in fake_anthropic.env().items():
        monkeypatch.setenv(key, value)
    tidy = _start("learnings", "tidy", agent)
    try:
        assert planned.wait(60), "the tidy-up never planned"
        agentuse("learnings", "capture", agent, "--session", session)  # drains 33331111 and 44441111
        assert [r.id for r in store.load(location).learnings] == ["11111111", "22221111"]
    finally:
        answer.set()
    out, err = tidy.communicate(timeout=120)
    assert tidy.returncode == 0, (out, err)
    assert [r.id for r in store.load(location).learnings] == ["11111111", "22221111"]
    assert sorted(r.id for r in _entries(location.archive_path)) == ["33331111", "44441111"]


def test_a_note_planned_to_fold_into_a_rule_reworded_meanwhile_is_saved_beside_it_and_says_so(
        tmp_path, fake_anthropic, monkeypatch):
    """The note's fold was planned on the rule's old words; a person rewrote the rule in --edit while the
    reconcile call was out. The merged wording does not carry the new words, so it must not replace them
    (it did: the edited rule went to the archive, unread). The note is saved beside it and the line says why."""
    import threading

    from fakes import tool_use

    from agentuse.core.learning import Channel, Source

    agent = make_agent(tmp_path / "p", "learning:\n  capture: true\n  apply: true\n  max: 15")
    from capture_support import current_ih

    location = seed(agent, [rule("aaaa1111", "Keep intros factual", src=Source.manual, ch=Channel.corrections,
                                 ih=current_ih(agent))])
    note = "Keep intros factual rather than promotional"
    asked, answer = threading.Event(), threading.Event()

    def reply(request):
        tool = request.forced_tool
        if tool == "submit_ground":
            return tool_use(tool, {"rule": {"category": "tip", "title": note, "body": note}})
        if tool == "submit_reconcile":
            asked.set()
            assert answer.wait(60)
            return tool_use(tool, {"action": "fold", "replaces": ["aaaa1111"],
                                   "merged": {"category": "tip", "title": note, "body": note + "."}})
        if tool == "submit_vet":
            import re

            ids = re.findall(r'<candidate id="([^"]+)"', request.text)
            return tool_use(tool, {"verdicts": [{"id": i, "verdict": "pass", "detail": ""} for i in ids]})
        return tool_use(tool, {"missing": []} if tool == "submit_audit" else {})

    fake_anthropic.script(default=reply)
    for key, value in fake_anthropic.env().items():
        monkeypatch.setenv(key, value)
    add = _start("learnings", "add", agent, note)
    try:
        assert asked.wait(60), "the note was never reconciled"
        edit_with(tmp_path, monkeypatch, agent, "s/Keep intros factual$/Keep intros factual and under 50 words/")
    finally:
        answer.set()
    out, err = add.communicate(timeout=120)
    assert add.returncode == 0, (out, err)
    titles = {r.id: r.title for r in store.load(location).learnings}
    assert titles.get("aaaa1111") == "Keep intros factual and under 50 words", titles
    assert note in titles.values(), titles
    assert "[Learning] Not folded into id:aaaa1111: that rule changed or left the store" in out, out
    assert not _entries(location.archive_path)


def test_a_restore_waiting_for_a_tidy_up_commit_does_not_hold_the_store_lock_the_commit_needs_next(tmp_path):
    """Every writer takes the commit's locks in one order (the agent-file lock, the store's, the archive's):
    a restore took the store's and the archive's first and then waited for the agent-file lock, which a
    tidy-up commit holds while it waits for the store's: each waited for the other until one gave up
    (60 s, then an error)."""
    import fcntl

    from agentuse.core import snapshots

    agent = make_agent(tmp_path / "p", CAPPED)
    location = seed(agent, [rule("aaaa1111", "Use bullet lists for steps")])
    agentuse("learnings", "discard", agent, "aaaa1111")
    commit = os.open(f"{snapshots.tidy_lock_path(location)}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(commit, fcntl.LOCK_EX)  # a tidy-up commit has begun: its first lock is taken
    try:
        restore = _start("learnings", "restore", agent, "aaaa1111")
        said = _until_waiting(restore)
        assert said and said[-1].startswith(f"waiting for {snapshots.tidy_lock_path(location)}.lock"), said
        # The commit's next lock is the store's: free, or the two would wait on each other.
        store_lock = os.open(f"{location.store_path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(store_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises BlockingIOError when held
            fcntl.flock(store_lock, fcntl.LOCK_UN)
        finally:
            os.close(store_lock)
    finally:
        fcntl.flock(commit, fcntl.LOCK_UN)
        os.close(commit)
    out, err = restore.communicate(timeout=120)
    assert restore.returncode == 0, (out, err)
    assert [r.id for r in store.load(location).learnings] == ["aaaa1111"] and not _entries(location.archive_path)


def test_one_session_captured_twice_at_once_stores_its_rule_once(tmp_path, fake_anthropic, monkeypatch):
    """The post-run capture and a `learnings capture --session` of the same run (or a retry) at once: each
    vets the same candidate against a store holding neither, so both passed; the second is the first again
    (a model's rule said again stores nothing new), never a second copy in the cap."""
    import re

    from fakes import tool_use

    from capture_support import make_session


    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    custom: Only rules about saving posts.\n  max: 15")
    location = seed(agent, [])
    session = make_session(agent)

    def reply(request):
        tool = request.forced_tool
        if tool == "submit_extract":
            return tool_use(tool, {"candidates": [{"category": "tip", "title": "Save posts under posts/",
                                                   "body": "Save each post under posts/ with a slug."}]})
        ids = re.findall(r'<candidate id="([^"]+)"', request.text)
        return tool_use(tool, {"verdicts": [{"id": i, "verdict": "pass", "detail": ""} for i in ids]})

    fake_anthropic.script(default=reply)
    for key, value in fake_anthropic.env().items():
        monkeypatch.setenv(key, value)
    # Both captures wait to write, each vetted on its own read.
    ended = _all_through_the_commit_lock(location, *[("learnings", "capture", agent, "--session", session)] * 2)
    assert [code for code, _, _ in ended] == [0, 0], ended
    assert [r.title for r in store.load(location).learnings] == ["Save posts under posts/"]
