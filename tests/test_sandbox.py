"""The sandbox against real hostile processes, in every isolation mode this machine has."""

from __future__ import annotations

import dataclasses
import json
import os
import selectors
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import (
    HostError,
    Limits,
    Sandbox,
    SandboxedProcess,
    SandboxError,
    SandboxWarning,
    procfs,
)
from arena.sandbox.procfs import CLOCK_TICKS, TreeSampler, cpu_since

HOSTILE = Path(__file__).parent / "hostile"
MODES = ("auto", "unshare", "none")
ROOT = os.geteuid() == 0
TIMEOUT = 20.0


def sandbox(mode: str = "auto", **limits: int) -> Sandbox:
    """A Sandbox in `mode`, or a skip saying why this machine cannot give it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SandboxWarning)
            return Sandbox(Limits(**limits), mode=mode)
    except SandboxError as exc:
        pytest.skip(f"mode {mode!r} is not available here: {exc}")


def needs(box: Sandbox, protection: str) -> None:
    """Skip unless `box` enforces `protection` (a key of protections())."""
    if not box.protections()[protection]:
        pytest.skip(f"mode {box.mode!r} does not give {protection} (see its warnings)")


def needs_python(box: Sandbox) -> None:
    """Skip if the hostile scripts (#!/usr/bin/env python3) cannot run as the bot uid."""
    if box.mode != "bwrap" and ROOT and not any(
        os.access(os.path.join(d, "python3"), os.X_OK) and _public(os.path.join(d, "python3"))
        for d in ("/usr/local/bin", "/usr/bin", "/bin")
    ):
        pytest.skip(f"no python3 that the bot uid can run outside bwrap (mode {box.mode!r})")


def _public(path: str) -> bool:
    real = os.path.realpath(path)
    parent = os.path.dirname(real)
    while parent != "/":
        if not os.stat(parent).st_mode & 0o001:
            return False
        parent = os.path.dirname(parent)
    return os.stat(real).st_mode & 0o005 == 0o005


@pytest.fixture
def start() -> Iterator[Callable[..., SandboxedProcess]]:
    """Start hostile bots; every one is closed at the end of the test."""
    started: list[SandboxedProcess] = []

    def run(box: Sandbox, program: str, *args: str, **kwargs: object) -> SandboxedProcess:
        needs_python(box)
        proc = box.start([str(HOSTILE / program), *args], **kwargs)  # type: ignore[arg-type]
        started.append(proc)
        return proc

    yield run
    for proc in started:
        proc.close()


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A world-readable temporary directory (a bot uid must be able to read it)."""
    path = Path(tempfile.mkdtemp(prefix="arena-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def read_until(proc: SandboxedProcess, done: Callable[[bytes], bool], timeout: float = TIMEOUT) -> str:
    """Read the bot's stdout until done(output) or EOF."""
    data = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout_fd, selectors.EVENT_READ)
        while not done(data):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out; stdout so far {data!r}; stderr {drain(proc.stderr_fd)!r}")
            if not selector.select(left):
                continue
            try:
                chunk = os.read(proc.stdout_fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                break
            data += chunk
    return data.decode()


def first_line(proc: SandboxedProcess) -> str:
    """The first line the bot prints (fails the test if there is none)."""
    text = read_until(proc, lambda data: b"\n" in data)
    assert "\n" in text, f"no output; stderr: {drain(proc.stderr_fd)!r}; {proc.exit_description()}"
    return text.split("\n")[0]


def drain(fd: int) -> str:
    """Whatever can be read from a non-blocking fd right now."""
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except (BlockingIOError, OSError):
            break
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace")


def finish(proc: SandboxedProcess) -> tuple[str, str]:
    """stdout and stderr of a bot that exits by itself, after its exit."""
    out = read_until(proc, lambda data: False)
    assert proc.wait(TIMEOUT) is not None, "the bot did not exit"
    time.sleep(0)
    return out, drain(proc.stderr_fd)


def host_pid(ns_pid: int, pidns: str | None) -> int:
    """The host pid of a process that knows itself as `ns_pid` in pid namespace `pidns`."""
    if pidns is None:
        return ns_pid
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{entry}/ns/pid") != pidns:
                continue
            with open(f"/proc/{entry}/status") as file:
                nspid = next(line for line in file if line.startswith("NSpid:")).split()
        except (OSError, StopIteration):
            continue
        if int(nspid[-1]) == ns_pid:
            return int(entry)
    raise AssertionError(f"no process {ns_pid} in {pidns}")


def running(pid: int) -> bool:
    """True if `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            state = file.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


def processes_in(pidns: str) -> list[int]:
    """Host pids of the live processes in a pid namespace."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.readlink(f"/proc/{entry}/ns/pid") == pidns and running(int(entry)):
                found.append(int(entry))
        except OSError:
            continue
    return found


def processes_of_uid(uid: int) -> list[int]:
    """Host pids of the live processes whose real uid is `uid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as file:
                real = int(next(line for line in file if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration):
            continue
        if real == uid and running(int(entry)):
            found.append(int(entry))
    return found


def own_pidns(box: Sandbox, reported: str) -> str | None:
    """The bot's pid namespace as seen from here, or None if it shares ours."""
    return reported if box.protections()["pid_namespace"] else None


# -- isolation ------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_network_connection_to_local_listener_fails(mode: str, start) -> None:
    box = sandbox(mode)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        proc = start(box, "net_connect.py", str(listener.getsockname()[1]))
        line = first_line(proc)
    if box.protections()["network_isolated"]:
        assert line.startswith("blocked"), line
    else:
        assert line == "connected", "mode 'none' claims no network isolation; this documents it"


@pytest.mark.parametrize("mode", MODES)
def test_files_outside_the_allowed_paths_are_hidden(mode: str, start, public_dir: Path) -> None:
    box = sandbox(mode)
    needs(box, "filesystem_hidden")
    store = public_dir / "store.sqlite"
    store.write_text("SECRET RESULTS")
    store.chmod(0o644)
    assert first_line(start(box, "read_file.py", str(store))) == "denied FileNotFoundError"
    assert first_line(start(box, "list_dir.py", str(public_dir))) == "denied FileNotFoundError"
    # ... while a directory passed as readable is there, read-only.
    assert first_line(start(box, "read_file.py", str(store), readable=[public_dir])) == "read SECRET RESULTS"
    writer = start(box, "big_file.py", "1", str(store), readable=[public_dir])
    assert first_line(writer).startswith("error EROFS"), "readable dirs must be read-only"


def test_a_writable_dir_is_the_one_place_a_bot_writes_and_comes_back_to_its_owner(
        start, public_dir: Path, tmp_path: Path) -> None:
    box = sandbox("auto")
    needs(box, "filesystem_hidden")
    work = public_dir / "work"
    work.mkdir()
    (work / "src.c").write_text("int main(void) { return 0; }\n")
    victim = tmp_path / "victim.txt"   # another's file, which a link must not hand to the bot's owner
    victim.write_text("theirs")
    if ROOT:
        os.chown(victim, 4242, 4242)
    script = (f"cd {work} && cp src.c out.c && mkdir sub && cp /bin/true sub/tool && "
              f"chmod u+s,g+s sub/tool && ln -s {victim} link && "
              f"(echo x > {public_dir}/beside.txt; echo beside $?) && "
              f"(echo x > {HOSTILE}/planted.py; echo readable $?)")
    proc = box.start(["sh", "-c", script], writable=[work], readable=[HOSTILE])
    out, err = finish(proc)
    assert proc.poll() == 0, err
    assert "readable 0" not in out, out   # beside: a user's build may write the tmpfs, not the host
    assert "Read-only file system" in err   # the readable dir
    proc.close()
    assert (work / "out.c").read_text() == (work / "src.c").read_text()
    assert not (public_dir / "beside.txt").exists() and not (HOSTILE / "planted.py").exists()
    # as root the dir was lent to the bot's uid: everything in it is the owner's again
    for path in [work, *work.rglob("*")]:
        assert path.lstat().st_uid == os.getuid(), path
    if ROOT:   # a set-user-ID file of the bot's uid would become the owner's
        assert not (work / "sub" / "tool").stat().st_mode & (stat.S_ISUID | stat.S_ISGID)
    assert victim.stat().st_uid == (4242 if ROOT else os.getuid())   # the link, not its target


def test_writable_paths_are_checked_before_anything_runs(public_dir: Path) -> None:
    box = sandbox("auto")
    bot = [str(HOSTILE / "exit_with.py"), "code:0"]
    with pytest.raises(SandboxError, match="writable path '/no/such/dir' is not a directory"):
        box.start(bot, writable=["/no/such/dir"])
    with pytest.raises(SandboxError, match="lies in the system tree"):
        box.start(bot, writable=["/usr/lib"])
    with pytest.raises(SandboxError, match="contains the scratch root"):
        box.start(bot, writable=["/"])
    with pytest.raises(SandboxError, match="writable must be a list"):
        box.start(bot, writable=str(public_dir))  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
def test_scratch_dir_is_private_cwd_and_removed_at_close(mode: str, start) -> None:
    box = sandbox(mode)
    first = start(box, "cpu_spin.py", "0", cwd_files={"opening.txt": b"e4 e5"})
    assert first_line(first) == "spinning"
    scratch = first.scratch_dir
    assert scratch.is_dir() and stat.S_IMODE(scratch.stat().st_mode) == 0o700
    assert (scratch / "opening.txt").read_bytes() == b"e4 e5"
    if ROOT or box.mode == "bwrap":
        # Another bot cannot look into it (hidden by bwrap, or another uid's 0700 dir).
        line = first_line(start(box, "list_dir.py", str(scratch)))
        assert line.startswith("denied"), line
    seen = json.loads(first_line(start(box, "show_env.py", cwd_files={"book/lines.txt": b"1"})))
    assert seen["entries"] == ["book"]
    assert seen["cwd"] == seen["env"]["HOME"]
    first.close()
    assert not scratch.exists()


def test_scratch_size_is_limited_in_bwrap(start) -> None:
    box = sandbox("auto", scratch_mb=20)  # room for two 8 MiB files
    needs(box, "scratch_size_enforced")
    assert first_line(start(box, "fill_scratch.py")) == f"error ENOSPC at {16 * 1024 * 1024}"


@pytest.mark.parametrize("mode", MODES)
def test_environment_is_scrubbed(mode: str, start, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_TEST_SECRET", "hunter2")
    box = sandbox(mode)
    proc = start(box, "show_env.py", env={"BOT_LEVEL": "3"})
    env = json.loads(first_line(proc))["env"]
    assert "ARENA_TEST_SECRET" not in env
    allowed = {"PATH", "HOME", "LANG", "LC_ALL", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "BOT_LEVEL"}
    assert set(env) - {"PWD"} == allowed  # PWD is set by the namespace's init shell
    assert env["HOME"] == str(proc.scratch_dir)
    assert env["LANG"] == env["LC_ALL"] == "C.UTF-8"
    assert env["BOT_LEVEL"] == "3"


# -- killing everything -----------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_setsid_grandchild_is_killed_at_close(mode: str, start) -> None:
    box = sandbox(mode)
    proc = start(box, "setsid_escape.py")
    report = json.loads(first_line(proc))
    pidns = own_pidns(box, report["pidns"])
    pids = [host_pid(report["bot"], pidns), host_pid(report["escapee"], pidns)]
    assert all(running(pid) for pid in pids)
    proc.close()
    assert not any(running(pid) for pid in pids), "a process of the bot survived close()"
    if pidns is not None:
        assert processes_in(pidns) == []
    assert proc.poll() == -signal.SIGKILL and proc.killed_by_sandbox


@pytest.mark.parametrize("mode", MODES)
def test_fork_bomb_is_contained_and_fully_killed(mode: str, start) -> None:
    box = sandbox(mode, processes=16)
    if not ROOT and box.mode == "none":
        pytest.skip("mode 'none' as a normal user: the processes limit counts all your processes")
    proc = start(box, "fork_bomb.py")
    _, uid, pidns, _made = first_line(proc).split()
    if box.protections()["pid_namespace"]:
        bots = processes_in(pidns)
    else:
        bots = processes_of_uid(int(uid))
    if ROOT:
        # The bot's uid may own at most 16 processes; the init shell is root's.
        assert 2 <= len([pid for pid in bots if _uid(pid) == int(uid)]) <= 16, bots
    proc.close()
    assert not any(running(pid) for pid in bots)
    if box.protections()["pid_namespace"]:
        assert processes_in(pidns) == []
    elif ROOT:
        assert processes_of_uid(int(uid)) == []


@pytest.mark.skipif(not ROOT, reason="the sweep as the bot's own uid is a root referee's")
def test_a_bot_without_a_namespace_is_swept_once_as_its_uid(start, monkeypatch) -> None:
    # kill(-1) as the bot's uid ends every process of it, whatever it forks meanwhile:
    # once is enough, and each sweep starts a process (5-9 ms). Before, a bot killed at
    # its game's end and then closed was swept four times.
    from arena.sandbox import process
    sweeps = []
    real_run = process.subprocess.run

    def counted(argv, *args, **kwargs):
        sweeps.append(argv)
        return real_run(argv, *args, **kwargs)

    monkeypatch.setattr(process.subprocess, "run", counted)
    box = sandbox("none", processes=16)
    proc = start(box, "fork_bomb.py")
    uid = int(first_line(proc).split()[1])
    assert processes_of_uid(uid)
    proc.kill_tree()
    proc.close()
    assert processes_of_uid(uid) == []
    assert len(sweeps) == 1, sweeps


def test_what_a_killed_process_left_is_cleaned_by_the_next_sandbox(tmp_path: Path) -> None:
    # A process killed with kill -9 cannot remove its bots' scratch dirs, and a process of
    # its may outlive it: here one it left working in a scratch dir, and, killed a few ms
    # after start() returned, often its bot's whole namespace (bwrap's --die-with-parent
    # is not in force until its child has set up: 2 runs of 6 left init and bot, parent 1).
    # It kept them in a locked root of its own: the next Sandbox finds the lock free, ends
    # what still runs there and removes it.
    script = (
        "import os, signal, subprocess, sys\n"
        "from arena.sandbox import Sandbox\n"
        f"proc = Sandbox(mode='auto', scratch_root={str(tmp_path)!r}).start(['/bin/sleep', '600'])\n"
        "left = subprocess.Popen(['/bin/sleep', '601'], cwd=proc.scratch_dir, start_new_session=True,\n"
        "                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(left.pid, proc.scratch_dir, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SandboxWarning)
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
        pid, scratch = out.stdout.split()
        assert out.returncode == -signal.SIGKILL, out.stderr
        assert running(int(pid)) and Path(scratch).is_dir()
        left = working_in(scratch)
        assert int(pid) in left
        Sandbox(scratch_root=tmp_path)    # the next run's
    assert wait_for(lambda: not any(map(running, left))), "a process left in a dead process's scratch root runs"
    assert list(tmp_path.iterdir()) == []


def working_in(directory: str) -> list[int]:
    """Live processes whose working directory is `directory`."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.readlink(f"/proc/{entry}/cwd") == directory and running(int(entry)):
                found.append(int(entry))
        except OSError:
            pass
    return found


def wait_for(check: Callable[[], bool]) -> bool:
    """Poll check() until true, at most TIMEOUT seconds (a hang guard: a SIGKILL or a
    parent's death takes effect soon after, not at once)."""
    deadline = time.monotonic() + TIMEOUT
    while not check() and time.monotonic() < deadline:
        time.sleep(0.01)
    return check()


def _uid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as file:
            return int(next(line for line in file if line.startswith("Uid:")).split()[1])
    except (OSError, StopIteration):
        return None


@pytest.mark.parametrize("mode", MODES)
def test_bot_that_closed_stdout_is_still_killed(mode: str, start) -> None:
    box = sandbox(mode)
    proc = start(box, "close_stdout.py")
    ns_pid, reported_ns = first_line(proc).split()
    pid = host_pid(int(ns_pid), own_pidns(box, reported_ns))
    # No EOF to wait for: the sandbox launcher (outside) holds the pipe until the
    # end. The bot's own fd 1 goes away, though.
    deadline = time.monotonic() + TIMEOUT
    while os.path.exists(f"/proc/{pid}/fd/1") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not os.path.exists(f"/proc/{pid}/fd/1")
    assert proc.poll() is None and running(pid)
    proc.close()
    proc.close()  # idempotent
    assert not running(pid)
    assert proc.exit_description().startswith("killed by signal 9 (SIGKILL)")


# -- limits -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_big_allocation_fails(mode: str, start) -> None:
    box = sandbox(mode)  # memory_mb=1024 (RLIMIT_DATA)
    assert first_line(start(box, "alloc.py", "64")) == "allocated"
    assert first_line(start(box, "alloc.py", "2048")) == "MemoryError"


@pytest.mark.parametrize("mode", MODES)
def test_big_file_write_fails_at_the_file_size_limit(mode: str, start) -> None:
    box = sandbox(mode)  # file_size_mb=16
    assert first_line(start(box, "big_file.py", "100")) == f"error EFBIG at {16 * 1024 * 1024}"


@pytest.mark.parametrize("mode", MODES)
def test_cpu_spinner_dies_at_the_cpu_limit(mode: str, start) -> None:
    box = sandbox(mode, cpu_seconds=1)
    proc = start(box, "cpu_spin.py")
    assert first_line(proc) == "spinning"
    assert proc.wait(TIMEOUT) == -signal.SIGXCPU
    assert proc.resource_limit_hit() == "CPU time limit"
    assert proc.exit_description() == "killed by signal 24 (SIGXCPU): CPU time limit"
    # rusage can lag the scheduler's count that RLIMIT_CPU uses (0.82 s seen under load).
    assert proc.cpu_seconds() >= 0.5


def test_cpu_hard_limit_kills_a_bot_that_ignores_sigxcpu(start) -> None:
    box = sandbox("auto", cpu_seconds=1)
    proc = start(box, "cpu_spin.py", "--ignore-xcpu")
    assert first_line(proc) == "spinning"
    assert proc.wait(TIMEOUT) == -signal.SIGKILL  # at the hard limit, one second later
    assert proc.resource_limit_hit() == "CPU time limit"
    assert not proc.killed_by_sandbox


def test_pipes_carry_lines_both_ways_and_close_stdin_gives_eof() -> None:
    box = sandbox("auto")
    proc = box.start(["cat"])
    try:
        os.write(proc.stdin_fd, b"move 40\n")
        assert first_line(proc) == "move 40"
        assert not any(os.get_blocking(fd) for fd in (proc.stdin_fd, proc.stdout_fd, proc.stderr_fd))
        proc.close_stdin()
        proc.close_stdin()  # idempotent
        assert proc.wait(TIMEOUT) == 0
        assert proc.exit_description() == "exit code 0"
    finally:
        proc.close()


def test_cpu_seconds_counts_the_bot(start) -> None:
    box = sandbox("auto")
    proc = start(box, "cpu_spin.py", "0.3")
    assert read_until(proc, lambda data: b"spun\n" in data).endswith("spun\n")
    assert proc.cpu_seconds() >= 0.25  # /proc counts in clock ticks (its cost per call: benchmarks/agents.py)
    proc.close()
    assert proc.cpu_seconds() >= 0.25


@pytest.mark.parametrize("mode", MODES)
def test_a_bots_cpu_clocks_can_be_marked_once_its_tree_is_read(mode: str, start) -> None:
    # the referee marks a bot's CPU clocks before a request and reads its tree after
    # (MoveMeter): that must work for a sandboxed bot's processes, seen from outside
    proc = start(sandbox(mode), "cpu_spin.py", "0.05")
    assert proc.cpu_mark() is None        # no reading yet: nothing known to mark
    assert read_until(proc, lambda data: b"spun\n" in data).endswith("spun\n")
    proc.usage()
    mark = proc.cpu_mark()
    assert mark is not None and mark.clocks
    assert all(ns is not None and ns > 0 for _, ns in mark.clocks), mark.clocks
    proc.usage()
    assert cpu_since(mark) is not None


# -- exit status and errors -------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_exit_codes_and_signal_deaths(mode: str, start) -> None:
    box = sandbox(mode)
    cases = [("code:0", 0, "exit code 0"), ("code:3", 3, "exit code 3"),
             ("signal:SIGTERM", -15, "killed by signal 15 (SIGTERM)"),
             ("signal:SIGSEGV", -11, "killed by signal 11 (SIGSEGV)")]
    procs = [(start(box, "exit_with.py", how), code, text) for how, code, text in cases]
    for proc, code, text in procs:
        finish(proc)
        assert proc.poll() == code
        assert proc.exit_description() == text
        assert proc.resource_limit_hit() is None
        assert not proc.killed_by_sandbox


def test_relative_program_path_is_resolved_against_the_callers_cwd(
    start, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(HOSTILE.parent)
    box = sandbox("auto")
    proc = start(box, "exit_with.py", "code:5")  # absolute through the fixture ...
    finish(proc)
    assert proc.poll() == 5
    relative = box.start(["./hostile/exit_with.py", "code:6"])  # ... and relative
    try:
        finish(relative)
        assert relative.poll() == 6
    finally:
        relative.close()


def test_unstartable_commands_raise_a_clear_error(public_dir: Path) -> None:
    box = sandbox("auto")
    with pytest.raises(SandboxError, match=r"'\./no-such-bot' does not exist"):
        box.start(["./no-such-bot"])
    with pytest.raises(SandboxError, match=r"'no-such-command-xyz' is not on the sandbox PATH"):
        box.start(["no-such-command-xyz"])
    text_file = public_dir / "notes.txt"
    text_file.write_text("hello")
    with pytest.raises(SandboxError, match="is not an executable file"):
        box.start([str(text_file)])
    with pytest.raises(SandboxError, match="readable path"):
        box.start([str(HOSTILE / "exit_with.py"), "code:0"], readable=["/no/such/dir"])
    with pytest.raises(SandboxError, match="scratch root"):
        box.start([str(HOSTILE / "exit_with.py"), "code:0"], readable=["/"])
    with pytest.raises(SandboxError, match="cwd_files name"):
        box.start([str(HOSTILE / "exit_with.py"), "code:0"], cwd_files={"../escape": b""})
    with pytest.raises(SandboxError, match="argv must be"):
        box.start("python3 bot.py")  # type: ignore[arg-type]
    with pytest.raises(SandboxError) as raised:
        box.start(["./no-such-bot"])
    assert not isinstance(raised.value, HostError)   # the bot's own: its game is lost


def test_a_launcher_that_cannot_run_is_the_hosts_error_not_the_bots() -> None:
    box = sandbox("auto")
    box._tools = dataclasses.replace(box._tools, prlimit="/nonexistent/prlimit")
    with pytest.raises(HostError, match="could not launch '/nonexistent/prlimit'"):
        box.start([str(HOSTILE / "exit_with.py"), "code:0"])


def test_missing_interpreter_exits_127_with_a_message(public_dir: Path) -> None:
    box = sandbox("auto")
    bot = public_dir / "bot"
    bot.write_text("#!/usr/bin/env no-such-interpreter-xyz\n")
    bot.chmod(0o755)
    proc = box.start([str(bot)])
    try:
        _, err = finish(proc)
        assert proc.poll() == 127
        assert "no-such-interpreter-xyz" in err
    finally:
        proc.close()


def test_python_bots_can_import_the_arena_package(start) -> None:
    box = sandbox("auto")
    needs(box, "filesystem_hidden")  # only bwrap shows this Python to a bot uid everywhere
    proc = box.start(["python3", "-c", "import arena.sandbox, sys; print(sys.prefix)"])
    try:
        _, err = finish(proc)
        assert proc.poll() == 0, err
    finally:
        proc.close()


# -- modes ------------------------------------------------------------------------


def test_requesting_bwrap_when_it_is_missing_raises() -> None:
    with pytest.raises(SandboxError, match=r"'bwrap'.*'/nonexistent/bwrap'.*hint"):
        Sandbox(mode="bwrap", bwrap_path="/nonexistent/bwrap")


def test_auto_without_bwrap_falls_back_and_says_so_loudly() -> None:
    with pytest.warns(SandboxWarning) as said:
        box = Sandbox(mode="auto", bwrap_path="/nonexistent/bwrap")
    assert box.mode in ("unshare", "none")
    assert any("/nonexistent/bwrap" in text for text in box.warnings)
    assert any("files are NOT hidden" in text for text in box.warnings)
    assert {str(w.message) for w in said} == set(box.warnings)
    assert box.protections()["filesystem_hidden"] is False


def test_unknown_mode_and_bad_limits_raise() -> None:
    with pytest.raises(SandboxError, match="'docker'"):
        Sandbox(mode="docker")
    with pytest.raises(SandboxError, match="memory_mb"):
        Limits(memory_mb=0)


@pytest.mark.parametrize("mode", MODES)
def test_protections_describe_the_mode(mode: str) -> None:
    box = sandbox(mode)
    said = box.protections()
    assert said["mode"] == box.mode and said["running_as_root"] == ROOT
    assert said["warnings"] == box.warnings
    if box.mode == "bwrap":
        assert said["network_isolated"] and said["filesystem_hidden"] and said["pid_namespace"]
        assert said["scratch_size_enforced"]
        if ROOT:
            assert box.warnings == []
    elif box.mode == "unshare":
        assert said["network_isolated"] and said["pid_namespace"] and not said["filesystem_hidden"]
        assert any("files are NOT hidden" in text for text in box.warnings)
    else:
        assert not said["network_isolated"] and not said["pid_namespace"]
        assert any("network is NOT isolated" in text for text in box.warnings)


_TREE_SCRIPT = r"""
import os, sys, threading, time

def spin(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass

child = 0
for line in sys.stdin:
    if line.startswith("fork"):
        read, write = os.pipe()
        child = os.fork()
        if child == 0:
            spin(0.3)
            os.write(write, b"x")
            time.sleep(3600)
        os.read(read, 1)
        print(child, flush=True)
    elif line.startswith("thread"):
        started = threading.Event()
        def worker():
            started.tid = threading.get_native_id()
            started.set()
            threading.Event().wait()
        threading.Thread(target=worker, daemon=True).start()
        started.wait()
        print(started.tid, flush=True)
    elif line.startswith("reap"):
        os.kill(child, 9)
        os.waitpid(child, 0)
        print("reaped", flush=True)
"""


def python_answering(script: str, **popen: Any) -> subprocess.Popen[str]:
    """A Python process running script, which answers a line on stdin with a line."""
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1, **popen)
    assert proc.stdin is not None and proc.stdout is not None
    return proc


def test_tree_sampler_follows_a_tree_that_grows_and_shrinks() -> None:
    proc = python_answering(_TREE_SCRIPT)
    sampler = TreeSampler(proc.pid)
    try:
        def ask(command: str) -> str:
            proc.stdin.write(command + "\n")
            return proc.stdout.readline().strip()

        first = sampler.sample()
        assert set(first.waits) == {proc.pid} and sampler.walks == 1
        sampler.sample()
        assert sampler.walks == 1            # the same tree: the plan is followed, no walk
        child = int(ask("fork"))             # a new process, 0.3 s of CPU spent already
        grown = sampler.sample()
        assert set(grown.waits) == {proc.pid, child} and sampler.walks == 2
        launched = TreeSampler(proc.pid, root_is_init=True)   # as under a sandbox's init:
        assert set(launched.sample().waits) == {child}       # the root's waits only are not read
        launched.close()
        assert grown.cpu_seconds - first.cpu_seconds >= 0.2
        tid = int(ask("thread"))             # a new thread of the root
        threaded = sampler.sample()
        assert set(threaded.waits) == {proc.pid, child, tid} and sampler.walks == 3
        assert ask("reap") == "reaped"       # the child gone: its CPU is in the root's now
        shrunk = sampler.sample()
        assert set(shrunk.waits) == {proc.pid, tid} and sampler.walks == 4
        # its 0.3 s still count, in its parent's reaped-children times: clock ticks there,
        # the only unit the kernel gives them in, so up to two ticks fewer than it read live
        assert shrunk.cpu_seconds >= grown.cpu_seconds - 2 / CLOCK_TICKS
        sampler.sample(states=True)
        assert sampler.walks == 4
        launched = TreeSampler(proc.pid, root_is_init=True)   # and not its threads' either
        assert launched.sample().waits == {} and launched.sample().waits == {}
        assert launched.walks == 1
        launched.close()
    finally:
        sampler.close()
        proc.kill()
        proc.wait()


_SPIN_ON_ASK = """
import sys, time
for line in sys.stdin:
    start = time.process_time()
    while time.process_time() - start < 0.05:
        pass
    print("spun", flush=True)
"""


_FORK_ON_ASK = """
import os, sys, time
children = []
for line in sys.stdin:
    if line.strip() == "reap":
        os.kill(children[0], 9)
        os.waitpid(children[0], 0)
        print("reaped", flush=True)
        continue
    children.append(os.fork())
    if children[-1] == 0:
        start = time.process_time()
        while time.process_time() - start < 0.05:
            pass
        print("spun", flush=True)
        time.sleep(3600)
"""


def test_a_mark_counts_the_processes_born_since_and_knows_when_one_is_gone() -> None:
    proc = python_answering(_FORK_ON_ASK, start_new_session=True)
    sampler = TreeSampler(proc.pid)
    try:
        sampler.sample()
        mark = sampler.mark()
        assert mark is not None
        proc.stdin.write("spin\n")
        assert proc.stdout.readline().strip() == "spun"   # a child born after the mark spun
        sampler.sample()                                   # and the next reading finds it
        since = cpu_since(mark)
        assert since is not None and since >= 0.05
        mark = sampler.mark()
        assert mark is not None and len(mark.clocks) == 2
        proc.stdin.write("reap\n")
        assert proc.stdout.readline().strip() == "reaped"
        sampler.sample()
        assert cpu_since(mark) is None   # the marked child is gone, its time in its parent's
    finally:
        sampler.close()
        os.killpg(proc.pid, signal.SIGKILL)   # the children too, should a check fail
        proc.wait()


def test_a_process_whose_cpu_clock_cannot_be_read_counts_its_ticks(monkeypatch) -> None:
    # a host that keeps other processes' CPU clocks from the referee: the tree's CPU time
    # falls back to the stat's ticks rather than to nothing, and its plan is still followed
    monkeypatch.setattr(procfs, "process_cpu_ns", lambda pid: None)
    proc = python_answering(_SPIN_ON_ASK)
    sampler = TreeSampler(proc.pid)
    try:
        before = sampler.sample()
        for _ in range(3):
            proc.stdin.write("spin\n")
            assert proc.stdout.readline().strip() == "spun"
        after = sampler.sample()
        assert after.cpu_seconds - before.cpu_seconds >= 0.15 - 2 / CLOCK_TICKS   # spun 3 x 50 ms
        assert sampler.walks == 1 and sampler.pids() == []   # no clock to mark
    finally:
        sampler.close()
        proc.kill()
        proc.wait()


def test_a_mark_counts_what_the_marked_processes_ran_since() -> None:
    proc = python_answering(_SPIN_ON_ASK)
    sampler = TreeSampler(proc.pid)
    try:
        assert sampler.mark() is None        # no sample yet: no processes known to mark
        sampler.sample()
        mark = sampler.mark()
        assert mark is not None and [pid for pid, _ in mark.clocks] == [proc.pid]
        proc.stdin.write("spin\n")
        assert proc.stdout.readline().strip() == "spun"
        assert cpu_since(mark) >= 0.05       # it spun 50 ms of its own CPU time since
        proc.kill()
        proc.wait()
        assert cpu_since(mark) is None       # gone: what it ran since is not known
    finally:
        sampler.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
