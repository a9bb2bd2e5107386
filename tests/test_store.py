"""Where stores live and how they are read and written, on real temp directories and git repositories."""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
from pathlib import Path

import filelock
import git
import pytest

from agentuse.core import store
from agentuse.core.file_access import FileAccessError
from agentuse.core.file_lock import LockTimeout
from agentuse.core.learning import Learning, State
from agentuse.core.store_format import StoreDoc, StoreFormatError, parse, render

SPEC_EXAMPLE = Path(__file__).parent / "data" / "spec_storage_example.learnings.md"


def _sha(text: str, size: int) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:size]


def _rule(rule_id: str = "a1b2c3d4", **fields) -> Learning:
    return Learning(**{"id": rule_id, "title": f"Rule {rule_id}", "body": "Do it.", "date": "2026-01-27", **fields})


def _agent(folder: Path, relative: str = "agents/blog/write.agentuse") -> Path:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nmodel: anthropic:claude-sonnet-5\n---\n\n# Blog Writer\n")
    return path


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    git.Repo.init(root).close()
    return root


@pytest.fixture
def location(repo) -> store.AgentLocation:
    return store.locate(_agent(repo))


def _snapshot(path: Path) -> tuple[bytes, int, int]:
    info = path.stat()
    return path.read_bytes(), info.st_ino, info.st_mtime_ns


# ---------------------------------------------------------------- where


def test_data_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert store.data_dir({"AGENTUSE_DATA_DIR": "/d", "XDG_DATA_HOME": "/x"}) == Path("/d")
    assert store.data_dir({"XDG_DATA_HOME": "/x"}) == Path("/x/agentuse")
    assert store.data_dir({"AGENTUSE_DATA_DIR": "", "XDG_DATA_HOME": "/x"}) == Path("/x/agentuse")
    assert store.data_dir({"XDG_DATA_HOME": "relative"}) == tmp_path / "home/.local/share/agentuse"
    assert store.data_dir({}) == tmp_path / "home/.local/share/agentuse"
    assert store.data_dir({"AGENTUSE_DATA_DIR": "~/state"}) == tmp_path / "home/state"


@pytest.mark.parametrize("given", ["rel", "./state", "state/agentuse"])
def test_a_relative_data_dir_is_refused(given):
    # Spec: one agent resolves to one file whichever directory you run it from. A relative setting would
    # give it a store per folder, so it is refused (a relative XDG_DATA_HOME is ignored, as XDG says).
    with pytest.raises(store.DataDirError, match=f"AGENTUSE_DATA_DIR must be an absolute path, not '{given}'"):
        store.data_dir({"AGENTUSE_DATA_DIR": given})


def test_a_data_dir_that_is_a_file_says_so_naming_the_variable(tmp_path):
    afile = tmp_path / "passwd"
    afile.write_text("root:x:0:0\n")
    with pytest.raises(store.DataDirError, match=f"AGENTUSE_DATA_DIR names a file, not a folder: {afile}"):
        store.data_dir({"AGENTUSE_DATA_DIR": str(afile)})
    with pytest.raises(store.DataDirError, match=f"the state directory {afile}/x \\(from AGENTUSE_DATA_DIR\\) is "
                                                 f"inside a file, {afile}; point AGENTUSE_DATA_DIR at a folder"):
        store.data_dir({"AGENTUSE_DATA_DIR": str(afile / "x")})
    with pytest.raises(store.DataDirError, match=f"XDG_DATA_HOME names a file, not a folder: {afile}"):
        store.data_dir({"XDG_DATA_HOME": str(afile)})


@pytest.mark.parametrize("setting", ["relative/state", "/etc/passwd"])
def test_a_bad_data_dir_is_one_line_and_exit_1_from_any_command(tmp_path, monkeypatch, invoke, setting):
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-test\nlearning: true\n---\n\n# A\n\nSay hi.\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTUSE_DATA_DIR", setting)
    for args in (["learnings", agent], ["sessions", "list"], ["doctor", agent]):
        result = invoke(*args, code=1)
        assert result.stderr.count("\n") == 1 and "AGENTUSE_DATA_DIR" in result.stderr, (args, result.stderr)
    assert not (tmp_path / "relative").exists()


def test_data_dir_reads_the_environment_by_default(data_dir):
    assert store.data_dir() == data_dir


def test_project_root_is_the_git_root_or_the_directory(repo, tmp_path):
    nested = repo / "a" / "b"
    nested.mkdir(parents=True)
    assert store.project_root(nested) == repo.resolve()
    plain = tmp_path / "plain" / "dir"
    plain.mkdir(parents=True)
    assert store.project_root(plain) == plain.resolve()


def test_locate_keys_by_path_relative_to_the_git_root(repo, data_dir):
    location = store.locate(_agent(repo))
    project = data_dir / "project" / _sha(str(repo.resolve()), 12)
    assert location.root == repo.resolve()
    assert location.key == "agents/blog/write.agentuse"
    assert location.name == "write" and location.breadcrumb == "agents/blog/write.agentuse"
    assert location.project_dir == project
    assert location.store_path == project / "learnings/agents/blog/write.learnings.md"
    assert location.archive_path == project / "archive/agents/blog/write.learnings.md"
    assert (location.session_dir, location.consolidations_dir) == (project / "session", project / "consolidations")
    assert location.legacy_path == repo / "agents/blog/write.agentuse.learnings.md"


def test_one_agent_resolves_to_one_store_from_any_directory(repo, monkeypatch):
    agent = _agent(repo)
    expected = store.locate(agent)
    monkeypatch.chdir(repo / "agents")
    assert store.locate(Path("blog/write.agentuse")) == expected
    monkeypatch.chdir(repo / "agents/blog")
    assert store.locate(Path("write.agentuse")) == expected
    assert store.locate(Path("../blog/./write.agentuse")) == expected


def test_two_repositories_keep_separate_learnings(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    for root in (first, second):
        git.Repo.init(root).close()
    a, b = store.locate(_agent(first)), store.locate(_agent(second))
    assert a.key == b.key and a.project_dir != b.project_dir


def test_outside_git_the_directory_is_the_project(tmp_path, data_dir):
    agent = _agent(tmp_path / "loose", "helper.agentuse")
    location = store.locate(agent)
    assert location.root == (tmp_path / "loose").resolve()
    assert location.key == "helper.agentuse"
    assert location.project_dir == data_dir / "project" / _sha(str((tmp_path / "loose").resolve()), 12)


def test_symlinked_agent_pointing_outside_the_project_cannot_escape(repo, tmp_path):
    outside = _agent(tmp_path / "elsewhere", "evil.agentuse")
    link = repo / "agents" / "link.agentuse"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    location = store.locate(link)
    real = str(outside.resolve())
    assert location.key == f"evil-{_sha(real, 8)}.agentuse"
    assert location.breadcrumb == real
    learnings = location.project_dir / "learnings"
    assert location.store_path == learnings / f"evil-{_sha(real, 8)}.learnings.md"
    assert location.agent_path == link
    with store.transaction(location) as doc:
        doc.learnings.append(_rule())
    assert location.store_path.resolve().is_relative_to(learnings.resolve())


def test_symlinked_directory_and_dotted_paths_stay_inside_learnings(repo, tmp_path):
    outside = tmp_path / "outer"
    _agent(outside, "x.agentuse")
    (repo / "linked").symlink_to(outside)
    _agent(repo / "agents", "y.agentuse")
    for path in (repo / "linked/x.agentuse", repo / "agents/../../outer/x.agentuse", repo / "agents/./y.agentuse"):
        location = store.locate(path)
        learnings = (location.project_dir / "learnings").resolve()
        assert location.store_path.resolve().is_relative_to(learnings), path
        assert ".." not in Path(location.key).parts


def test_symlink_inside_the_project_shares_its_targets_store(repo):
    target = _agent(repo)
    alias = repo / "alias.agentuse"
    alias.symlink_to(target)
    assert store.locate(alias).store_path == store.locate(target).store_path


# ---------------------------------------------------------------- reading and writing


def test_missing_store_loads_empty_and_creates_nothing(location):
    doc = store.load(location)
    assert doc == StoreDoc(name="write", agent="agents/blog/write.agentuse", learnings=[])
    with store.transaction(location) as doc:
        pass
    assert not location.store_path.exists()


def test_save_then_load(location):
    doc = StoreDoc(name="write", agent="agents/blog/write.agentuse", learnings=[_rule(), _rule("bbbb2222")])
    store.save(location, doc)
    assert store.load(location) == doc
    assert location.store_path.read_text() == render(doc)


def test_spec_file_loads_and_saves_unchanged(location):
    location.store_path.parent.mkdir(parents=True)
    location.store_path.write_bytes(SPEC_EXAMPLE.read_bytes())
    before = _snapshot(location.store_path)
    doc = store.load(location)
    assert len(doc.learnings) == 4 and doc.agent == "blog-writer.agentuse"  # the file's breadcrumb is kept
    with store.transaction(location):
        pass
    store.save(location, doc)
    assert _snapshot(location.store_path) == before  # not even rewritten


def test_transaction_writes_changes(location):
    with store.transaction(location) as doc:
        doc.learnings.append(_rule())
    with store.transaction(location) as doc:
        doc.learnings[0].injected += 1
    assert store.load(location).learnings[0].injected == 1
    assert "injected:1" in location.store_path.read_text()


def test_transaction_that_raises_writes_nothing(location):
    store.save(location, StoreDoc(name="write", learnings=[_rule()]))
    before = _snapshot(location.store_path)
    with pytest.raises(RuntimeError):
        with store.transaction(location) as doc:
            doc.learnings[0].injected = 50
            raise RuntimeError("caller failed")
    assert _snapshot(location.store_path) == before


def test_loading_rewrites_only_the_documented_things(location):
    location.store_path.parent.mkdir(parents=True)
    location.store_path.write_text(
        "# Learnings for write\n<!-- agent: agents/blog/write.agentuse -->\n\n"
        "### [tip] Old counter\n<!-- id:aaaa1111 | confidence:0.90 | applied:5 | src:auto | 2026-01-01 -->\nA\n\n"
        "### [tip] Retired\n<!-- id:bbbb2222 | injected:0 | src:auto | state:retired | 2026-01-01 -->\nB\n\n"
        "### [tip] No id\n<!-- injected:0 | src:manual | 2026-01-02 -->\nC\n")
    with store.transaction(location):
        pass  # the caller changes nothing; the load's rewrites are still saved
    text = location.store_path.read_text()
    new_id = store.load(location).learnings[1].id
    assert text == (
        "# Learnings for write\n<!-- agent: agents/blog/write.agentuse -->\n\n"
        "### [tip] Old counter\n<!-- id:aaaa1111 | confidence:0.90 | injected:5 | src:auto | 2026-01-01 -->\nA\n\n"
        f"### [tip] No id\n<!-- id:{new_id} | injected:0 | src:manual | 2026-01-02 -->\nC\n")
    assert store.load(location).learnings[1].id == new_id  # stable once saved


def test_save_inside_a_transaction_does_not_deadlock(location):
    with store.transaction(location) as doc:
        doc.learnings.append(_rule())
        store.save(location, StoreDoc(name="write", learnings=[_rule("cccc3333")]))
    assert [rule.id for rule in store.load(location).learnings] == ["a1b2c3d4"]  # the outer write lands last


def test_retired_rules_are_refused_by_the_live_store(location):
    store.save(location, StoreDoc(name="write", learnings=[_rule()]))
    before = _snapshot(location.store_path)
    with pytest.raises(ValueError, match="archive"):
        with store.transaction(location) as doc:
            doc.learnings[0].state = State.retired
    with pytest.raises(ValueError, match="archive"):
        store.save(location, StoreDoc(name="write", learnings=[_rule(state=State.retired)]))
    assert _snapshot(location.store_path) == before


MALFORMED = "# Learnings for write\n\n### [tip] Fine\n<!-- id:aaaa1111 | 2026-01-01 -->\nA\n\n### [bogus] Bad\n<!-- 2026-01-01 -->\n"


def test_malformed_store_is_never_overwritten(location):
    location.store_path.parent.mkdir(parents=True)
    location.store_path.write_text(MALFORMED)
    before = _snapshot(location.store_path)
    ran = False
    with pytest.raises(StoreFormatError) as caught:
        with store.transaction(location):
            ran = True
    assert not ran
    assert (caught.value.file, caught.value.line) == (str(location.store_path), 7)
    with pytest.raises(StoreFormatError):
        store.load(location)
    with pytest.raises(StoreFormatError):
        store.save(location, StoreDoc(name="write", learnings=[_rule()]))
    assert _snapshot(location.store_path) == before


def test_undecodable_store_names_the_line(location):
    location.store_path.parent.mkdir(parents=True)
    location.store_path.write_bytes(b"# Learnings for write\n\n### [tip] \xff\n")
    with pytest.raises(StoreFormatError) as caught:
        store.load(location)
    assert caught.value.line == 3 and "UTF-8" in caught.value.message


# ---------------------------------------------------------------- atomic writes and locks


def test_atomic_write_creates_folders_and_keeps_bytes_exact(tmp_path):
    target = tmp_path / "a" / "b" / "file.md"
    store.atomic_write(target, "line\r\nnext\n")
    assert target.read_bytes() == b"line\r\nnext\n"
    assert sorted(os.listdir(target.parent)) == ["file.md"]  # no temp file left behind


def test_atomic_write_keeps_permissions_and_writes_through_symlinks_only_when_asked(tmp_path):
    real = tmp_path / "real.agentuse"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.agentuse"
    link.symlink_to(real)
    with pytest.raises(store.LinkRefusedError):
        store.atomic_write(link, "new")  # a state-directory write: never through a link
    assert real.read_text() == "old"
    store.atomic_write(link, "new", follow_symlinks=True)  # the agent file: through its link, on purpose
    assert link.is_symlink() and real.read_text() == "new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_atomic_write_refuses_a_read_only_file(tmp_path, monkeypatch):
    target = tmp_path / "locked.agentuse"
    target.write_text("keep")
    target.chmod(0o444)
    if os.geteuid() == 0:  # root passes every permission check, so ask as an ordinary user would be answered
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == target else real_access(path, mode))
    with pytest.raises(FileAccessError, match="permission denied writing .*locked.agentuse was left as it was"):
        store.atomic_write(target, "changed")
    assert target.read_text() == "keep"


def test_atomic_write_sweeps_only_stale_temp_files(tmp_path):
    target = tmp_path / "x.learnings.md"
    stale, fresh = tmp_path / ".x.learnings.md.0123abcd.tmp", tmp_path / ".x.learnings.md.4567cdef.tmp"
    other = tmp_path / ".y.learnings.md.0123abcd.tmp"
    for path in (stale, fresh, other):
        path.write_text("partial")
    old = time.time() - store.STALE_TEMP_SECONDS - 5
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    store.atomic_write(target, "text")
    assert not stale.exists() and fresh.exists() and other.exists()


def test_lock_for_excludes_and_is_excluded_by_filelock(tmp_path):
    """The same flock filelock takes: an older agentuse (or any filelock user) and this one exclude each other."""
    target = tmp_path / "x.learnings.md"
    with filelock.FileLock(f"{target}.lock"):
        with pytest.raises(LockTimeout):
            store.lock_for(target).acquire(timeout=0.02)
    with store.lock_for(target):
        with pytest.raises(filelock.Timeout):
            filelock.FileLock(f"{target}.lock", thread_local=False).acquire(timeout=0.02)
    with filelock.FileLock(f"{target}.lock", timeout=0.02):  # released: free for anyone
        pass


def test_a_lock_held_too_long_is_one_line_naming_the_file(tmp_path, cli, monkeypatch):
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-sonnet-5\nlearning: true\n---\n# A\n\nWrite.\n")
    location = store.locate(agent)
    monkeypatch.setattr(store, "LOCK_TIMEOUT_SECONDS", 0.05)
    location.store_path.parent.mkdir(parents=True)
    with filelock.FileLock(f"{location.store_path}.lock"):
        busy = cli("learnings", "add", str(agent), "Keep intros factual", code=1)
    assert f"{location.store_path}.lock has been held by another agentuse process" in busy.stderr
    assert "Traceback" not in busy.stderr and len(busy.stderr.strip().splitlines()) == 1


def test_lock_for_is_a_side_file_reentrant_and_exclusive_across_threads(tmp_path):
    target = tmp_path / "deep" / "x.learnings.md"
    lock = store.lock_for(target)
    assert Path(lock.lock_file) == tmp_path / "deep" / "x.learnings.md.lock"
    assert store.lock_for(target) is lock
    held, release = threading.Event(), threading.Event()

    def holder():
        with store.lock_for(target):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert held.wait(10)
        with pytest.raises(LockTimeout, match="held by another agentuse process"):
            store.lock_for(target).acquire(timeout=0.05)
    finally:
        release.set()
        thread.join()
    with lock:
        with store.lock_for(target):
            assert lock.is_locked


# ---------------------------------------------------------------- archive


def test_archive_appends_retired_entries_and_never_rewrites_earlier_ones(location):
    store.archive(location, [], reason="nothing")
    assert not location.archive_path.exists()
    store.archive(location, [_rule(why="quarantine reason")], reason="superseded by bbbb2222")
    first = location.archive_path.read_text()
    assert first.startswith("# Learnings for write\n<!-- agent: agents/blog/write.agentuse -->\n\n### [tip] Rule a1b2c3d4\n")
    assert "<!-- id:a1b2c3d4 | injected:0 | src:auto | state:retired | 2026-01-27 -->\n" in first
    assert "<!-- why: retired: superseded by bbbb2222 -->\n" in first
    store.archive(location, [_rule("bbbb2222"), _rule("a1b2c3d4")], reason="folded\ninto one")
    second = location.archive_path.read_text()
    assert second.startswith(first.rstrip("\n"))
    archived = store.load_archive(location)
    assert [(rule.id, rule.state, rule.why) for rule in archived.learnings] == [
        ("a1b2c3d4", State.retired, "retired: superseded by bbbb2222"),
        ("bbbb2222", State.retired, "retired: folded into one"),
        ("a1b2c3d4", State.retired, "retired: folded into one"),
    ]
    assert parse(second).learnings == []  # a live read skips every retired entry
    assert render(archived) == second
    assert not location.store_path.exists()  # the live store is untouched


def test_load_archive_of_nothing_is_empty(location):
    assert store.load_archive(location).learnings == []


def test_malformed_archive_is_never_appended_to(location):
    location.archive_path.parent.mkdir(parents=True)
    location.archive_path.write_text(MALFORMED)
    before = _snapshot(location.archive_path)
    with pytest.raises(StoreFormatError):
        store.archive(location, [_rule()], reason="x")
    assert _snapshot(location.archive_path) == before
