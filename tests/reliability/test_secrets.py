"""No secret from a run reaches the store, the session log's learning lines, a helper prompt or the next
run's system prompt (issue 13, Secrets), and redaction leaves ordinary text alone.

The end-to-end test runs the real loop against the fake Messages API: the model's `run_shell` commands
carry credentials, each fails once and is corrected, and post-run capture goes through the Anthropic
helper over HTTP, so the fake server records every prompt a helper model would have read.
"""

from __future__ import annotations

import json
import re

import pytest
from capture_support import TODAY, make_agent, make_session, rule, seed, stored
from fakes.scripted_helper import ScriptedHelper, passing
from fakes import text, tool_use

from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.helper import protocol as p
from agentuse.core.helper.factory import override_helper
from agentuse.core.inject import select_for_run
from agentuse.core.learning import Channel
from agentuse.core.redact import REDACTED, is_secret_name, redact_text, redact_value
from agentuse.core.tool_errors import record_for, recoveries, signature
from agentuse.core.trace import ToolTrace, TraceCall
from agentuse.flows.capture import run_capture
from agentuse.runtime.approval import find_session
from agentuse.runtime.review import record_learning_result
from agentuse.runtime.session import SessionLog

GHP = "ghp_R2d2C3poL8kQ9vX1mN4bT7yH0sJ6wE5aZ3uF"
SK_ANT = "sk-ant-api03-Xq7Lm2Pz9Rt4Vw8Yb3Nc6Df1Gh5Jk0Ls-Ab12Cd34Ef56_QQ"
SK_LIVE = "sk-live-4eC39HqLyjWDarjtT1zdp7dc"
URL_PASSWORD = "S3cretPassw0rd"
AKIA = "AKIAIOSFODNN7EXAMPLE"
ENTROPY = "Zx9Qk2LmP7vR4tW8yB3nD6fH1jK5sA0cE2gI4uO7"
API_KEY = "lemonTree42"
assert len(GHP) == 4 + 36 and len(ENTROPY) == 40

SECRETS = ["hunter2", GHP, SK_ANT, SK_LIVE, URL_PASSWORD, AKIA, ENTROPY, API_KEY]

# (failed command, corrected command): each correction changes something besides the secret.
SHELL = [
    ("false deploy --password hunter2 --target prod", "true deploy --password hunter2 --target staging"),
    ("PASSWORD=hunter2 false migrate --all", "PASSWORD=hunter2 true migrate"),
    (f"false push {GHP}", f"true push --force {GHP}"),
    (f"false models {SK_ANT}", f"true models --list {SK_ANT}"),
    (f'false curl -H "Authorization: Bearer {SK_LIVE}" https://api.example.com/v1/charges',
     f'true curl -sf -H "Authorization: Bearer {SK_LIVE}" https://api.example.com/v1/charges'),
    (f"false clone https://admin:{URL_PASSWORD}@git.example.com/x", f"true clone https://admin:{URL_PASSWORD}@git.example.com/x"
                                                                      " --depth 1"),
    (f"false aws --profile ci {AKIA}", f"true aws --profile ci --region eu-west-1 {AKIA}"),
    (f"false sign {ENTROPY}", f"true sign --detach {ENTROPY}"),
    (f"false fetch --api-key {API_KEY} items", f"true fetch --api-key {API_KEY} items --all"),
]

AGENT_LEARNING = """learning:
  capture:
    addons: [tool-errors]
    custom: Only capture rules about shell commands."""


def leaked(text_: str) -> list[str]:
    return [s for s in SECRETS if s in text_]


def helper_answer(request):
    """The capture helper's replies: an extract whose second draft echoes a credential (a model can repeat
    what it was shown), and a vet that passes the first draft and rejects the second."""
    if request.forced_tool == "submit_extract":
        return tool_use("submit_extract", {"candidates": [
            {"category": "tool-usage", "title": "Read credentials from the environment",
             "body": "Pass credentials to shell commands through environment variables, not flags."},
            {"category": "tip", "title": "Deploy with --password hunter2",
             "body": f"Use PASSWORD=hunter2 and the token {GHP}."}]})
    if request.forced_tool == "submit_vet":
        ids = re.findall(r'<candidate id="([^"]+)"', request.text)
        return tool_use("submit_vet", {"verdicts": [
            {"id": i, "verdict": "pass" if n == 0 else "ungrounded",
             "detail": "" if n == 0 else "the trace never shows --password hunter2 working"}
            for n, i in enumerate(ids)]})
    if request.forced_tool == "submit_reconcile":  # the second run's capture overflows the cap: no fold
        return tool_use("submit_reconcile", {"action": "new"})
    raise AssertionError(f"unexpected helper call {request.forced_tool}")


def run_replies(pairs):
    replies = []
    for bad, good in pairs:
        replies += [tool_use("run_shell", {"command": bad}), tool_use("run_shell", {"command": good})]
    return [*replies, text("Done.")]


def sid_of(output: str) -> str:
    return re.search(r"session (01[0-9A-HJKMNP-TV-Z]{24})", output).group(1)


def test_no_secret_from_a_run_reaches_the_store_the_log_or_any_prompt(tmp_path, cli, fake_anthropic):
    agent = make_agent(tmp_path / "p", AGENT_LEARNING)
    location = store.locate(agent)
    fake_anthropic.script(*run_replies(SHELL), default=helper_answer)
    first = cli("run", agent, f"Ship the release. CI has GITHUB_TOKEN={GHP} and PASSWORD=hunter2.")
    run_requests = len(SHELL) * 2 + 1

    # The run itself worked from its own conversation; capture stored one record per failure mode.
    records = stored(agent)
    assert sum(r.ch is Channel.tool_errors for r in records) == len(SHELL)
    assert sum(r.ch is Channel.custom for r in records) == 1

    # Run again with other values of the same credentials: the failure modes are the same (the dedupe
    # key does not carry the secret), so the records refresh instead of doubling.
    other = [(b.replace("hunter2", "hunter3"), g.replace("hunter2", "hunter3")) for b, g in SHELL]
    before = len(fake_anthropic.requests)
    fake_anthropic.script(*run_replies(other))
    second = cli("run", agent, "Ship the release again.")
    assert sum(r.ch is Channel.tool_errors for r in stored(agent)) == len(SHELL)

    helper_requests = [r for r in fake_anthropic.requests if r.forced_tool]
    assert [r.forced_tool for r in helper_requests].count("submit_vet") == 2
    assert "run_shell" in helper_requests[0].text and REDACTED in helper_requests[0].text  # the trace was sent
    for request in helper_requests:
        assert leaked(request.text) == [], request.forced_tool
        assert leaked(json.dumps(request.body)) == [], request.forced_tool

    next_system = fake_anthropic.requests[before].body["system"]
    assert "## Relevant Learnings" in next_system and "run_shell" in next_system  # the rules were injected
    assert leaked(next_system) == []

    assert leaked(location.store_path.read_text(encoding="utf-8")) == []
    if location.archive_path.exists():
        assert leaked(location.archive_path.read_text(encoding="utf-8")) == []
    for result in (first, second):
        lines = find_session(sid_of(result.stdout)).learning
        assert lines and leaked("\n".join(lines)) == []
    assert any("rejected by the vet" in line for line in find_session(sid_of(first.stdout)).learning)
    assert not [r for r in fake_anthropic.requests[before:before + run_requests] if r.forced_tool]


def test_a_reviewer_note_with_a_credential_is_stored_and_grounded_without_it(tmp_path, cli):
    agent = make_agent(tmp_path / "p", "learning: true")
    helper = ScriptedHelper(ground=[lambda r: p.GroundAnswer(rule=p.Draft(title="Authenticate with a token",
                                                                          body=r.comment))],
                            audit=[p.AuditAnswer()], reconcile=[p.ReconcileAnswer(action="new")], vet=[passing])
    with override_helper(helper):
        result = cli("learnings", "add", agent, f"Push with --token {GHP} and PASSWORD=hunter2")
    [ground] = helper.requests["ground"]
    assert leaked(ground.model_dump_json()) == [] and "--token ***" in ground.comment
    assert leaked(result.stdout) == []
    [rule] = stored(agent)
    assert leaked(rule.model_dump_json()) == [] and "--token ***" in rule.body
    for request in (*helper.requests["audit"], *helper.requests["reconcile"], *helper.requests["vet"]):
        assert leaked(request.model_dump_json()) == []


# ---------------------------------------------------------------- the patterns, one by one


@pytest.mark.parametrize("raw, kept", [
    ("deploy --password hunter2 --target prod", "deploy --password *** --target prod"),
    ("deploy --password=hunter2", "deploy --password=***"),
    ('login --passwd "two words"', "login --passwd ***"),
    ("PASSWORD=hunter2 ./migrate", "PASSWORD=*** ./migrate"),
    ("export DB_PASS='hunter2'", "export DB_PASS=***"),
    ("MYSQL_PWD=hunter2 mysql", "MYSQL_PWD=*** mysql"),
    (f"push --token {API_KEY}", "push --token ***"),
    (f"fetch --api-key {API_KEY}", "fetch --api-key ***"),
    (f"fetch --client-secret={API_KEY}", "fetch --client-secret=***"),
    (f"git push {GHP} main", "git push *** main"),
    (f"GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "GH=***"),
    (f"key {SK_ANT} ok", "key *** ok"),
    (f"key sk-proj-{ENTROPY[:24]} ok", "key *** ok"),
    (f"stripe sk_live_{ENTROPY[:24]}", "stripe ***"),
    (f'curl -H "Authorization: Bearer {SK_LIVE}" x', 'curl -H "Authorization: Bearer ***" x'),
    ("Authorization: Basic YWRtaW46aHVudGVyMg==", "Authorization: Basic ***"),
    ("got Bearer abc.def-123 back", "got Bearer *** back"),
    (f"git clone https://admin:{URL_PASSWORD}@git.example.com/x", "git clone https://admin:***@git.example.com/x"),
    ("curl -u admin:hunter2 https://x.example", "curl -u admin:*** https://x.example"),
    (f"aws {AKIA} s3", "aws *** s3"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=***"),
    ("secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY end", "secret *** end"),
    (f"sign {ENTROPY}", "sign ***"),
    ("slack xoxb-123456789012-abcdefABCDEF", "slack ***"),
    ("google AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "google ***"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "jwt ***"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY----- done", "*** done"),
    ('{"password": "hunter2", "user": "me"}', '{"password": "***", "user": "me"}'),
    ('{\\"api_key\\":\\"lemonTree42\\"}', '{\\"api_key\\":\\"***\\"}'),  # JSON inside JSON (a transcript)
    ("https://api.example.com/v1?access_token=lemonTree42&page=2", "https://api.example.com/v1?access_token=***&page=2"),
    ("password: hunter2", "password: ***"),
    # A path is judged segment by segment: a random-looking segment of 32+ characters is still a secret.
    (f"GET /api/v1/keys/{ENTROPY} failed", "GET /api/v1/keys/*** failed"),
    ("secret a8Kz/Qw3xR7m/Lp2Nv9t/Yb4Hc6Jd1Fg5 end", "secret *** end"),  # base64 with slashes, not a path
    # Shorter tokens inside a URL's path (found by review: a path read segment by segment printed them).
    ("GET /api/v1/invites/Xk3dP9qLm2Vt8sYw4ZbN/accept 500", "GET /api/v1/invites/***/accept 500"),
    ("curl http://web/webhooks/incoming/Q8mZ2kP7xL4vN9tR3wB6yH1c/ -d '{}'", "curl http:*** -d '{}'"),
    # A Slack webhook: the team and channel ids are ids, the last segment is the secret.
    ("POST /services/T024BE7LD/B01ABCDEF2/Xk3dP9qLm2Vt8sYw4ZbNq7Rr 200", "POST /services/T024BE7LD/B01ABCDEF2/*** 200"),
])
def test_each_secret_pattern_is_redacted(raw, kept):
    assert redact_text(raw) == kept
    assert redact_text(kept) == kept  # idempotent: a second pass (or a stored record) changes nothing


@pytest.mark.parametrize("ordinary", [
    "Saved the post to posts/focus.md",
    "path '/posts/focus.md' is outside the project root; use a path relative to the project root",
    "/Users/me/Projects/App2/src/Main.java",
    "src/agentuse/core/helper/render.py:42",
    "commit deadbeef12 missing; try git checkout 3f2a9c1",
    "e996637f1b2c3d4e5f60718293a4b5c6d7e8f901",  # a full git SHA
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "published 2026-08-19, updated 2026-08-19T10:15:30Z",
    "session 01K8ZABCDEFGHJKMNPQRSTVWXY not found",
    "request 3fa85f64-5717-4562-b3fc-2c963f66afa6 failed after 2.5s",
    "test_the_record_follows_the_spec_example_and_redacts_secrets",
    "AbstractSingletonProxyFactoryBeanImplementation22",
    "posts/2026-08-19-morning-routines-for-busy-people.md",
    "2026-08-19-morning-routines-for-busy-people-and-teams",
    "the bearer of bad news; bearer tokens expire",
    "invalid token: expired",
    "password: incorrect",
    "PWD=/home/me/project OLDPWD=/tmp",
    "export API_KEY=$API_KEY; deploy --token \"$DEPLOY_TOKEN\" --password ${DB_PASSWORD}",
    "--token-file ~/.config/tok --auth-type basic --password-stdin",
    "max_tokens=1024 token_count=5 tokens: 12",
    "email me at user@example.com or git@github.com:org/repo.git",
    "http://localhost:8765/agents?page=2 and ssh://git@host:22/x",
    "author: Jane Doe, passage: 3",
    "files.length remained 0",
    # Paths, which join into one long token: state folders (a project hash), temporary and CI folders.
    "Extracted 1 learning(s), 0 quarantined → /tmp/su/data3/project/b5c6e124d9ea/learnings/blog-writer.learnings.md",
    "/tmp/pytest-of-root/pytest-3/test_capture_writes0/state/project/9f8e7d6c5b4a/learnings/a.learnings.md",
    "/Users/me/Library/Caches/agentuse/project/0a1b2c3d4e5f/session/01K8ZABCDEFGHJKMNPQRSTVWXY.jsonl",
    "/tmp/tmpk2j3h4g5/state/project/5e4d3c2b1a09/learnings/x.learnings.md",
    "src/agentuse/core/helper/v2/offline_judge3.py",
    "/home/alice/.local/share/agentuse/project/9f8e7d6c5b4a/session/01K8ZABCDEFGHJKMNPQRSTVWXY.jsonl",
    "/home/alice/.local/share/agentuse/project/9f8e7d6c5b4a/learnings/dns-check.archive.md",
    "Bearer authentication failed",
    "",
])
def test_ordinary_text_is_left_alone(ordinary):
    assert redact_text(ordinary) == ordinary


@pytest.mark.parametrize("error, sig", [  # what the signature was before redaction (tests/test_tool_errors.py has more)
    ("command exited with status 1: git push origin main", "command exited with status #: git push origin main"),
    ("invalid token: expired", "invalid token: expired"),
    ("password: incorrect for user admin", "password: incorrect for user admin"),
    ("Bearer authentication failed", "bearer authentication failed"),
    ("--token-file missing; PWD=/srv/app", "--token-file missing; #"),
    ("max_tokens=1024 exceeded", "max_tokens=# exceeded"),
])
def test_signatures_without_secrets_are_unchanged(error, sig):
    assert signature(error) == sig


def test_the_signature_does_not_carry_the_secret_so_the_dedupe_key_is_stable():
    one = signature("command exited with status 1: deploy --password hunter2 --token " + GHP)
    two = signature("command exited with status 1: deploy --password hunter3 --token ghp_" + "x" * 36)
    assert one == two == "command exited with status #: deploy --password *** --token ***"


def test_key_names_and_values_are_both_redacted_in_structured_input():
    # Everything under a secret-looking key goes, whatever its inner keys are called (`{"auth": {"u", "p"}}`).
    assert redact_value({"api_key": "sk-1", "auth": {"user": "me", "pass": "hunter2"}, "author": "Jane",
                         "headers": ["Authorization: Bearer " + SK_LIVE], "tokens": 5, "timeout": 30}) == {
        "api_key": REDACTED, "auth": {"user": REDACTED, "pass": REDACTED}, "author": "Jane",
        "headers": ["Authorization: Bearer ***"], "tokens": 5, "timeout": 30}


def test_a_learning_line_is_redacted_in_the_session_log(tmp_path):
    log = SessionLog.create(tmp_path, "01K8ZSECRETS000000000000AA")
    record_learning_result(log, f'[Learning] Superseded by a later recovery: "push {GHP}" (archived, id:x)')
    [event] = log.read()[0]
    assert event.line == '[Learning] Superseded by a later recovery: "push ***" (archived, id:x)'


# ---------------------------------------------------------------- values and shapes


def shell_trace(*calls: tuple[str, object, str | None]) -> ToolTrace:
    return ToolTrace(calls=[TraceCall(call_id=str(i), tool=t, input=inp, ok=err is None, error=err,
                                      output=None if err else "ok") for i, (t, inp, err) in enumerate(calls)])


def test_a_sensitive_or_one_off_value_is_stored_as_its_shape():
    [secret] = recoveries(shell_trace(("run_shell", {"command": "false --password hunter2"}, "exit 1"),
                                      ("run_shell", {"command": "true --password hunter2 --retry"}, None)))
    rec = record_for(secret)
    assert rec.body.endswith('use the corrected call shape that succeeded: {"command":<string>}')
    assert rec.evidence == 'failed: {"command":<string>} → succeeded: {"command":<string>}'

    [dated] = recoveries(shell_trace(("write_file", {"path": "/abs/2026-08-19-focus-3fa85f64.md"}, "outside the root"),
                                     ("write_file", {"path": "posts/2026-08-19-focus-3fa85f64.md"}, None)))
    assert record_for(dated).body.endswith('{"path":<string>}')

    [stable] = recoveries(shell_trace(("upload", {"path": "./shot.png", "retries": 2}, "files.length remained 0"),
                                      ("upload", {"path": "/Users/me/shot.png", "retries": 3}, None)))
    assert record_for(stable).body.endswith('{"path":"/Users/me/shot.png","retries":3}')  # the spec's example


def test_a_retry_that_changed_only_the_secret_teaches_nothing_storable():
    assert recoveries(shell_trace(("http", {"url": "x", "api_key": "sk-1"}, "401 unauthorized"),
                                  ("http", {"url": "x", "api_key": "sk-2"}, None))) == []


def test_a_one_off_value_refreshes_its_record_instead_of_superseding_it(tmp_path):
    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    addons: [tool-errors]")
    for n, day in enumerate(["2026-08-19", "2026-08-20"], start=1):
        session = make_session(agent, [("write_file", {"path": f"/abs/{day}-focus.md"}, "path is outside the root"),
                                       ("write_file", {"path": f"posts/{day}-focus.md"}, None)],
                               session_id=f"01K8ZSECRETS00000000000{n}AA")
        report = run_capture(agent=str(agent), session=str(session), helper=ScriptedHelper(), today=TODAY)
        assert report.extracted == (1 if n == 1 else 0)
    [rec] = stored(agent)
    assert rec.body.endswith('{"path":<string>}') and "2026-08-20" not in rec.body
    assert rec.sess == "01K8ZSECRETS000000000002AA"  # refreshed by the second run, not replaced


def test_a_value_recognised_once_is_masked_wherever_the_run_repeats_it():
    # The error echoes the password with nothing around it to recognise it by; the command named it.
    trace = ToolTrace(prompt="Log in", transcript="TOOL ERROR run_shell: login failed for hunter2x9", calls=[
        TraceCall(call_id="1", tool="run_shell", input={"command": "login --password hunter2x9"}, ok=False,
                  error="login failed for hunter2x9 on db1"),
        TraceCall(call_id="2", tool="run_shell", input={"command": "login --password hunter2x9 --db db2"}, ok=True,
                  output="welcome hunter2x9")])
    shown = trace.model_dump_json() + trace.evidence()
    assert "hunter2x9" not in shown and "login failed for *** on db1" in shown
    [found] = recoveries(trace)
    assert found.sig == "login failed for *** on db1" and "hunter2x9" not in record_for(found).model_dump_json()


def test_a_store_written_before_redaction_hands_a_run_no_credential(tmp_path):
    agent = make_agent(tmp_path / "p", "learning: true")
    location = seed(agent, [rule("aaaa0001", f"Push with --token {GHP}", ih=agent_hash(load_agent(agent)))])
    injection = select_for_run(load_agent(agent), store.load(location), agent_hash(load_agent(agent)))
    assert injection.ids == ["aaaa0001"] and leaked(injection.text) == [] and "--token ***" in injection.text


def test_random_base64_with_slashes_is_not_read_as_a_path():
    """A credential of the base64 alphabet often holds `/`: reading one as a path would leave it whole."""
    import random
    import string

    from agentuse.core.redact import high_entropy, is_path

    rng = random.Random(17)
    alphabet = string.ascii_letters + string.digits + "+/"
    tokens = ["".join(rng.choice(alphabet) for _ in range(rng.randint(32, 64))) for _ in range(3000)]
    secrets = [t for t in tokens if "/" in t and high_entropy(t)]
    assert len(secrets) > 1000
    assert [t for t in secrets if is_path(t)] == []
    assert all(redact_text(f"x {t} y") == "x *** y" for t in secrets)


# ---------------------------------------------------------------- names written as one run (review 18, A)

# Secret words inside a name's all-caps or lower-case run: `PGPASSWORD` is libpq's, `NPM_AUTHTOKEN` npm's.
SECRET_NAMES = ["PGPASSWORD", "PGPASS", "AUTHTOKEN", "NPM_AUTHTOKEN", "APITOKEN", "ACCESSTOKEN", "GITHUBTOKEN",
                "DBPASS", "ADMINPASSWORD", "SMTPPASSWORD", "pgpassword", "mysqlpwd", "CLIENTSECRET", "JWTSECRET",
                "STRIPEAPIKEY", "MASTERKEY", "SESSIONCOOKIE", "ROOTPASSWD", "GPGPASSPHRASE", "AWSCREDENTIALS",
                "PASSWORDPROD", "DB_PASSWORD", "apiToken", "X-Api-Key", "MYSQL_PWD", "REDISPASS"]
# Ordinary names that hold the same letters: their values are no credentials and stay as they are.
ORDINARY_NAMES = ["BYPASS", "PASSENGER_COUNT", "COMPASS", "TOKENIZER_PATH", "KEYBOARD", "MONKEY",
                  "PASSWORD_MIN_LENGTH", "SURPASS", "TRESPASS", "OVERPASS", "UNDERPASS", "ENCOMPASS", "OLDPWD",
                  "PWD", "AUTHOR", "AUTHORITY", "MAX_TOKENS", "TOKENS", "TOKEN_COUNT", "TOKENIZERS_PARALLELISM",
                  "KEYNOTE", "TURKEY", "HOCKEY", "WHISKEY", "PASSAGE", "PASSIVE", "SECRETARY", "PASSWORDLENGTH",
                  "PASSWORDFILE", "TOKENFILE", "COMPASS_HEADING", "BYPASS_CACHE", "HOTKEY", "PASSTHROUGH",
                  "SESSIONS", "AUTHORS_FILE", "PASSES", "BANDPASS", "GETPASS", "MULTIPASS", "CREDENTIALED",
                  "PASSWORDLESS"]


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_a_secret_word_inside_a_names_run_makes_it_secret(name):
    assert is_secret_name(name)
    assert redact_text(f"{name}=hunter2secret psql -h db") == f"{name}=*** psql -h db"
    assert redact_text(f"--{name.lower()} hunter2secret") == f"--{name.lower()} ***"


@pytest.mark.parametrize("name", ORDINARY_NAMES)
def test_an_ordinary_name_with_the_same_letters_is_left_alone(name):
    assert not is_secret_name(name)
    assert redact_text(f"{name}=hunter2 x") == f"{name}=hunter2 x"
    assert redact_text(f"--{name.lower()} hunter2") == f"--{name.lower()} hunter2"


def test_a_run_whose_command_carries_pgpassword_stores_and_sends_none_of_it(tmp_path, cli, fake_anthropic):
    """The reviewer's repro: the failing call and its correction both carry `PGPASSWORD=...`; the
    tool-errors record, the custom channel's extract and vet requests and the next run's prompt hold none."""
    agent = make_agent(tmp_path / "p", AGENT_LEARNING)
    secret = "hunter2secret"
    fake_anthropic.script(
        tool_use("run_shell", {"command": f"PGPASSWORD={secret} sh -c 'echo refused >&2; exit 2'"}),
        tool_use("run_shell", {"command": f"PGPASSWORD={secret} sh -c 'echo ok' --host db"}),
        text("done"), default=helper_answer)
    cli("run", agent, "check db")
    [record] = [r for r in stored(agent) if r.ch is Channel.tool_errors]
    assert "pgpassword=***" in record.title and secret not in record.model_dump_json()  # the sig is lower-case
    assert secret not in store.locate(agent).store_path.read_text(encoding="utf-8")
    helper_requests = [r for r in fake_anthropic.requests if r.forced_tool]
    assert {"submit_extract", "submit_vet"} <= {r.forced_tool for r in helper_requests}
    assert [r.forced_tool for r in helper_requests if secret in json.dumps(r.body)] == []
    before = len(fake_anthropic.requests)
    fake_anthropic.script(text("ok"))
    cli("run", agent, "again")
    system = fake_anthropic.requests[before].body["system"]
    assert "pgpassword=***" in system and secret not in system


def test_a_note_naming_pgpassword_is_stored_without_it(tmp_path, cli):
    agent = make_agent(tmp_path / "p", "learning: true")
    result = cli("learnings", "add", agent, "Connect with PGPASSWORD=hunter2secret to the staging db")
    assert "hunter2secret" not in result.stdout
    [rule] = stored(agent)
    assert "hunter2secret" not in rule.model_dump_json() and "PGPASSWORD=***" in rule.text


# ---------------------------------------------------------------- one found set per message (review 18, B)

DB_SECRET = "zq8Xv2LmP0rT"


def test_a_secret_a_model_wrote_in_a_title_is_masked_in_the_body_too(tmp_path, cli, fake_anthropic):
    """Recognised in the title (`DB_PASSWORD=`), bare in the body: neither the vet, the store nor the next
    run's system prompt gets it."""
    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    custom: Capture rules about database connections.")

    def answer(request):
        if request.forced_tool == "submit_extract":
            return tool_use("submit_extract", {"candidates": [{
                "category": "tip", "title": f"Connect with DB_PASSWORD={DB_SECRET}",
                "body": f"If asked, type the password {DB_SECRET}."}]})
        if request.forced_tool == "submit_vet":
            ids = re.findall(r'<candidate id="([^"]+)"', request.text)
            return tool_use("submit_vet", {"verdicts": [{"id": i, "verdict": "pass"} for i in ids]})
        raise AssertionError(f"unexpected helper call {request.forced_tool}")

    fake_anthropic.script(text("done"), default=answer)
    cli("run", agent, "check the db")
    [vet] = [r for r in fake_anthropic.requests if r.forced_tool == "submit_vet"]
    assert "type the password ***" in vet.text and DB_SECRET not in json.dumps(vet.body)
    [rule] = stored(agent)
    assert (rule.title, rule.body) == ("Connect with DB_PASSWORD=***", "If asked, type the password ***.")
    assert DB_SECRET not in store.locate(agent).store_path.read_text(encoding="utf-8")
    before = len(fake_anthropic.requests)
    fake_anthropic.script(text("ok"))
    cli("run", agent, "again")
    system = fake_anthropic.requests[before].body["system"]
    assert "type the password ***" in system and DB_SECRET not in system


def test_every_message_with_several_redacted_fields_masks_a_value_found_in_one_in_all():
    title, body = f"Connect with DB_PASSWORD={DB_SECRET}", f"If asked, type {DB_SECRET}."
    masked = ("Connect with DB_PASSWORD=***", "If asked, type ***.")
    assert (lambda d: (d.title, d.body))(p.Draft(title=title, body=body)) == masked  # the capture agent's drafts
    rule = p.GroundAnswer.model_validate({"rule": {"title": title, "body": body}}).rule
    assert (rule.title, rule.body) == masked
    # Across the drafts of one answer, and from a reviewer's note into the output it was left on.
    extract = p.ExtractAnswer.model_validate({"candidates": [{"title": title}, {"title": "Retry", "body": body}]})
    assert [d.body for d in extract.candidates] == ["", "If asked, type ***."]
    ground = p.GroundRequest(comment=f"Use --password {DB_SECRET}", reviewed_output=f"logged in as {DB_SECRET}")
    assert ground.reviewed_output == "logged in as ***"
    vet = p.VetRequest(contract="c", trace=f"PASSWORD={DB_SECRET} psql", candidates=[
        p.VetCandidate(id="a", text=f"Type {DB_SECRET}")])
    assert vet.candidates[0].text == "Type ***"
    # A value too short or too plain to be masked elsewhere stays where it is not recognised.
    assert p.Draft(title="Run with --token prod", body="Deploy to prod").body == "Deploy to prod"


def test_a_capture_agents_submission_is_masked_across_title_and_instruction(tmp_path, fake_anthropic, monkeypatch):
    for key, value in fake_anthropic.env().items():
        monkeypatch.setenv(key, value)
    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    agent: ./capture.agentuse")
    (agent.parent / "capture.agentuse").write_text(
        "---\nmodel: anthropic:claude-haiku-4-5\n---\n\n# Capture Evaluator\n\nRecord rules about databases.\n")
    fake_anthropic.script(tool_use("submit_learnings", {"learnings": [{
        "category": "tip", "title": f"Connect with DB_PASSWORD={DB_SECRET}",
        "instruction": f"If asked, type the password {DB_SECRET}."}]}), text("Done."))
    helper = ScriptedHelper(vet=[passing])
    run_capture(agent=str(agent), session=str(make_session(agent)), helper=helper, today=TODAY)
    [vet] = helper.requests["vet"]
    assert DB_SECRET not in vet.model_dump_json() and "type the password ***" in vet.model_dump_json()
    [saved] = stored(agent)
    assert (saved.ch, saved.body) == (Channel.agent, "If asked, type the password ***.")


# ---------------------------------------------------------------- what `sessions show` prints (review 18, C)


def test_sessions_show_masks_credentials_and_the_log_keeps_the_record(tmp_path, cli, fake_anthropic):
    agent = make_agent(tmp_path / "libxslt1-dev" / "p", "learning: false")  # a folder redaction reads as random
    command = f"echo 'login failed for Sup3rS3cret!' >&2; false --password Sup3rS3cret! --token {GHP}"
    fake_anthropic.script(tool_use("run_shell", {"command": command}), text("Could not log in."))
    sid = sid_of(cli("run", agent, f"Deploy with {GHP}").stdout)
    shown = cli("sessions", "show", sid).stdout
    as_json = cli("sessions", "show", sid, "--json").stdout
    for printout in (shown, as_json):
        assert GHP not in printout and "Sup3rS3cret" not in printout
        assert "--password ***" in printout and "Deploy with ***" in printout
        assert "login failed for ***" in printout  # the error echoes what the command named
    assert str(agent.resolve()) in shown  # the log's own fields are shown as written
    payload = json.loads(as_json)
    assert payload["agent_path"] == str(agent.resolve()) and payload["id"] == sid and any(e.get("session_id") == sid for e in payload["events"])
    assert [c["name"] for c in payload["tool_calls"]] == ["run_shell"]
    log = find_session(sid).path
    assert GHP in open(log, encoding="utf-8").read()  # the run's record stays as it was


# ---------------------------------------------------------------- names in paths (review 18, D)

# Segments of words joined by - or _ with short digit runs are names, not secrets: no `***` in a path shown.
NAMED_PATHS = [
    "/tmp/review18-scratch/data-sec/x.md",
    "Extracted 1 learning(s), 0 quarantined → /tmp/review18-scratch/data-sec/project/b5c6e124d9ea/learnings/s.learnings.md",
    "cd /work/sprint18-review/src/app && make",
    "/home/me/src/sprint18-review/strength_training-plan2/notes.md",
    "/var/lib/ci/builds/release-2026_q3-hotfix4/artifacts/app.tar.gz",
    "https://example.com/docs/getting-started_v2/install-guide/linux",
    "AGENTUSE_HELPER_TIMEOUT_SECONDS=120",
    "PROMETHEUS_MULTIPROC_DIR=/tmp/prom2",
    "MY_VERY_LONG_CONFIG_VALUE_NAME_2=abc",
]


@pytest.mark.parametrize("ordinary", NAMED_PATHS)
def test_a_path_of_joined_words_is_shown_as_it_is(ordinary):
    assert redact_text(ordinary) == ordinary


def test_random_tokens_in_a_url_path_are_still_hidden_though_they_hold_dashes():
    """A url-safe token (`-`, `_`) splits into parts; reading its parts as words would let it through."""
    import random
    import string

    rng = random.Random(18)
    alphabet = string.ascii_letters + string.digits + "-_"
    tokens = ["".join(rng.choice(alphabet) for _ in range(rng.randint(12, 40))) for _ in range(4000)]
    tokens = [t for t in tokens if t.strip("-_") == t and ("-" in t or "_" in t) and any(c.isdigit() for c in t)]
    assert len(tokens) > 1500
    kept = [t for t in tokens if REDACTED not in redact_text(f"GET /api/v1/invites/{t}/accept")]
    assert len(kept) <= len(tokens) // 200, kept[:10]  # at most 0.5% read as names


def test_the_web_session_page_shows_what_sessions_show_prints(tmp_path, invoke):
    """The page's event log says it is what `agentuse sessions show` prints: it is masked the same way."""
    from serve_project import SERVE_TOKEN, awaiting_review, make_project, recorded_replies, signed_in

    from agentuse.serve.app import create_app

    agent = make_project(tmp_path / "blog")
    sid = awaiting_review(agent, recorded_replies(tmp_path / "rec", f"Pushed with {GHP}."), prompt=f"Push with {GHP}")
    page = signed_in(create_app(agent.parent.parent, token=SERVE_TOKEN)).get(f"/sessions/{sid}").text
    assert GHP not in page and "Push with ***" in page and "Pushed with ***." in page
    assert GHP not in invoke("sessions", "show", sid).stdout


# ---------------------------------------------------------------- a provider's error text (review 19)

OPENAI_KEY = "sk-proj-Q7vR2mLx9PzT4wK8bN3cY6dF1hJ5sA0eG2iU4oX7"


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_provider_error_that_echoes_the_key_prints_and_keeps_none_of_it(tmp_path, invoke, fake_anthropic,
                                                                          fake_openai, monkeypatch, provider):
    """Proxies and OpenAI-compatible servers put the key they were sent in the error text ("Received API Key
    = sk-..."), and a hostile one can send megabytes: the message a person reads (and a session log keeps)
    names the fault, never the key, and stays one readable line."""
    from fakes import error

    server, key = (fake_anthropic, SK_ANT) if provider == "anthropic" else (fake_openai, OPENAI_KEY)
    for name, value in server.env(api_key=key).items():
        monkeypatch.setenv(name, value)
    model = "anthropic:claude-test" if provider == "anthropic" else "openai:gpt-test"
    agent = make_agent(tmp_path / "p", "learning: true").resolve()
    agent.write_text(agent.read_text().replace("anthropic:claude-test", model))
    echoed = f"Authentication Error, Received API Key = {key}. " + "padding " * 200_000
    server.script(default=lambda request: error(400, "invalid_request_error", echoed))
    result = invoke("learnings", "add", agent, "Always cite sources")
    assert key not in result.stdout + result.stderr
    assert "the API answered 400: Authentication Error, Received API Key = ***" in result.stdout
    assert len(result.stdout) < 5_000
    ran = invoke("run", agent, "hello", code=1)
    assert key not in ran.stdout + ran.stderr and len(ran.stderr) < 5_000
    logs = list((store.locate(agent).store_path.parents[1] / "session").glob("*.jsonl"))
    assert logs and all(key not in log.read_text(encoding="utf-8") for log in logs)


def test_a_vet_that_quotes_a_credential_from_the_agent_file_stores_none_of_it(tmp_path, cli, fake_anthropic):
    """The contract goes to the vet as written (it must see the whole of it); the quote it answers with is a
    model's text, and becomes the quarantine reason in the learnings file, outside the repository."""
    agent = make_agent(tmp_path / "p", "learning: true")
    agent.write_text(agent.read_text() + f"- Connect with DB_PASSWORD={DB_SECRET} and never to production\n")
    seed(agent, [rule("a1b2c3d4", "Connect to production for reports", ih="000000000000")])  # stale

    def answer(request):
        ids = re.findall(r'<candidate id="([^"]+)"', request.text)
        return tool_use(request.forced_tool, {"verdicts": [
            {"id": i, "verdict": "contradiction", "detail": f"Connect with DB_PASSWORD={DB_SECRET} and never "
                                                            "to production"} for i in ids]})

    fake_anthropic.script(default=answer)
    cli("learnings", "tidy", agent)
    [quarantined] = stored(agent)
    assert quarantined.why == 'contradicts the contract: "Connect with DB_PASSWORD=*** and never to production"'
    assert DB_SECRET not in store.locate(agent).store_path.read_text(encoding="utf-8")


def test_only_agentuses_own_layout_under_the_state_dir_is_exempt(monkeypatch):
    monkeypatch.setenv("AGENTUSE_DATA_DIR", "/tmp")
    shown = "/tmp/tmp.0Tf3qLEfQb/project/02e9e0199cc3/learnings/blog.learnings.md"
    assert redact_text(f"→ {shown}") != f"→ {shown}"  # not under /tmp/project/: judged as any other path
    assert ENTROPY not in redact_text(f"cat /tmp/{ENTROPY}/x")
    monkeypatch.setenv("AGENTUSE_DATA_DIR", "/tmp/tmp.0Tf3qLEfQb")
    assert redact_text(f"→ {shown}") == f"→ {shown}"
    assert redact_text(f"token ghp_{'a1' * 18} in /tmp/tmp.0Tf3qLEfQb/project/x") == \
        "token *** in /tmp/tmp.0Tf3qLEfQb/project/x"  # a credential format is still one, wherever it is
