"""A fork server for the load and crash tests: imports agentuse (and prefect) once, then forks one child
per trial or per load worker, so fifty kills cost milliseconds each instead of an interpreter start each.

Protocol: one JSON command per line on stdin, one JSON answer per line on stdout.

    {"cmd": "trial", "scenario": "save"|"capture"|"tidy", "config": {...}, "kill_at": k, "kill_after": s}
        fork a child that runs the scenario once. `kill_at` = k: the child kills itself (SIGKILL) just
        before its k-th file-system operation; `kill_after` = s: this server SIGKILLs it s seconds after
        the fork. Answer: {"signal": ..., "exit": ..., "ops": n, "elapsed": t} (ops/elapsed only when the
        child ran to the end).
    {"cmd": "load", "config": {...}}: fork the load workers together; answer their logs.

Forking a fresh, single-threaded server is safe; forking the pytest process (threads, open servers) is not.
"""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: fakes, tidy_scenario, reliability

from reliability import scenarios  # noqa: E402  (after the path insert; imports agentuse and prefect)

# --- killing a child at its k-th file-system operation ----------------------------------------------------

_OPS: dict = {"count": 0, "kill_at": -1, "trace": []}


def _step(name: str, args: tuple) -> None:
    if _OPS["count"] == _OPS["kill_at"]:
        os.kill(os.getpid(), signal.SIGKILL)
    _OPS["count"] += 1
    if _OPS["kill_at"] < 0:  # calibration: say what each operation touched, so kill points can be chosen
        target = args[-1] if name in ("replace", "rename") and len(args) > 1 else (args[0] if args else "")
        _OPS["trace"].append(f"{name} {target if isinstance(target, (str, os.PathLike)) else '<fd>'}")


def _wrap(module, name: str, when=lambda *a, **k: True) -> None:
    original = getattr(module, name)

    def hooked(*args, **kwargs):
        if when(*args, **kwargs):
            _step(name, args)
        return original(*args, **kwargs)

    setattr(module, name, hooked)


def _writes(_file, mode="r", *args, **kwargs) -> bool:
    return any(flag in mode for flag in "wax+")


def _creates(_path, flags, *args, **kwargs) -> bool:
    return bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))


def arm(kill_at: int) -> None:
    """Count (and possibly die at) every operation that changes a file: creating, writing, syncing,
    renaming, removing. pathlib and os.fdopen go through io.open, so patching it covers them."""
    _OPS.update(count=0, kill_at=kill_at, trace=[])
    _wrap(io, "open", _writes)
    _wrap(os, "open", _creates)
    for name in ("fsync", "replace", "rename", "mkdir", "unlink", "rmdir"):
        _wrap(os, name)
    _wrap(shutil, "rmtree")


# --- the server -------------------------------------------------------------------------------------------


def _child(fn, report_fd: int) -> None:
    try:
        start = time.perf_counter()
        extra = fn() or {}
        elapsed = time.perf_counter() - start
        os.write(report_fd, json.dumps({"ops": _OPS["count"], "trace": _OPS["trace"], "elapsed": elapsed,
                                        **extra}).encode())
        code = 0
    except BaseException as error:  # noqa: BLE001 - reported to the test, which fails on it
        os.write(report_fd, json.dumps({"error": f"{type(error).__name__}: {error}"}).encode())
        code = 1
    os.close(report_fd)
    os._exit(code)


def _fork(fn) -> tuple[int, int]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        _child(fn, write)
    os.close(write)
    return pid, read


def _collect(pid: int, read: int) -> dict:
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    answer = json.loads(b"".join(chunks)) if chunks else {}
    answer["signal"] = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    answer["exit"] = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    return answer


def trial(command: dict) -> dict:
    run = scenarios.SCENARIOS[command["scenario"]]
    config, kill_at, kill_after = command["config"], command.get("kill_at"), command.get("kill_after")

    def body():
        os.environ["AGENTUSE_DATA_DIR"] = command["data_dir"]  # the state dir of the test that asked
        arm(-1 if kill_at is None else kill_at)
        return run(config)

    pid, read = _fork(body)
    if kill_after is not None:
        time.sleep(kill_after)
        os.kill(pid, signal.SIGKILL)
    return _collect(pid, read)


def load(command: dict) -> dict:
    config = command["config"]
    os.environ["AGENTUSE_DATA_DIR"] = command["data_dir"]  # inherited by the forked workers
    children = [_fork(lambda i=i: scenarios.load_worker(config, i)) for i in range(config["workers"])]
    return {"workers": [_collect(pid, read) for pid, read in children]}


def main() -> None:
    random.seed()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        if command["cmd"] == "quit":
            break
        answer = trial(command) if command["cmd"] == "trial" else load(command)
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
