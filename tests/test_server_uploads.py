"""arena.server.uploads: every hostile upload of tests/server/hostile.py is refused with its
status and message, leaving the destination empty and nothing new anywhere around it; the
kinds a participant sends (a source file, a zip of a C++ bot, a tar.gz, a wheel built by
setuptools) unpack whole; the streaming cap, requirement check and name rule."""

from __future__ import annotations

import collections
import gzip
import importlib.metadata
import io
import os
import random
import shutil
import stat
import subprocess
import sys
import tarfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.uploads import (
    UploadCaps,
    UploadRefused,
    UploadSink,
    WheelInfo,
    missing_requirements,
    unpack,
    valid_name,
)
from tests.server.hostile import (
    HOSTILE,
    MiB,
    TarMember,
    accepted_zip_of_cpp_bot,
    wheel_files,
    write_tgz,
    write_wheel,
)

ROOT = Path(__file__).resolve().parents[1]
BOMBS = ("zip-bomb-lying-header", "zip-bomb-ratio", "zip-claims-10-gb", "tar-claims-10-gb", "tar-bomb",
         "tar-pax-header-bomb")


def tree(root: Path) -> dict[str, int]:
    """Every path under root with its size (-1 for a directory), links not followed."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            found[str(path.relative_to(root))] = -1 if path.is_dir() and not path.is_symlink() else \
                path.lstat().st_size
    return found


@pytest.mark.parametrize("case", HOSTILE, ids=[case.name for case in HOSTILE])
def test_a_hostile_upload_is_refused_with_its_status_and_one_line_and_writes_nothing(tmp_path, case):
    # dest two levels down: one or two '..' out of it (the cases have no more) land inside
    # tmp_path, which this test alone writes (its parent holds other tests' files, still
    # being written by their processes on the same xdist worker)
    sent, dest = tmp_path / "sent", tmp_path / "a" / "b" / "dest"
    sent.mkdir()
    dest.parent.mkdir(parents=True)
    upload, filename = case.build(sent)
    around = tmp_path
    before = tree(around)
    with pytest.raises(UploadRefused) as refused:
        unpack(upload, filename, dest, UploadCaps())
    message = str(refused.value)
    assert refused.value.status == case.status, message
    assert case.message in message
    assert "\n" not in message and len(message) < 300
    assert not dest.exists() or list(dest.iterdir()) == []
    assert tree(around) == before | {str(dest.relative_to(around)): -1}
    assert "arena_tiny" not in sys.modules  # a wheel's module is never imported


def test_bombs_are_refused_having_written_at_most_a_32nd_of_the_cap_and_read_little_into_memory(tmp_path):
    # RLIMIT_FSIZE kills the unpacking process (SIGXFSZ) at a write past 2 MiB into any file;
    # RLIMIT_AS fails an allocation that would take it 48 MiB past what it has at the start
    uploads = []
    for case in (case for case in HOSTILE if case.name in BOMBS):
        where = tmp_path / case.name
        where.mkdir()
        uploads.append((*map(str, case.build(where)), str(tmp_path / f"{case.name}-dest")))
    script = textwrap.dedent(f"""
        import resource, sys
        from pathlib import Path
        from arena.server.uploads import UploadCaps, UploadRefused, unpack
        resource.setrlimit(resource.RLIMIT_FSIZE, ({2 * MiB}, {2 * MiB}))
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (size + {48 * MiB}, size + {48 * MiB}))
        for upload, filename, dest in {uploads!r}:
            try:
                unpack(Path(upload), filename, Path(dest), UploadCaps())
            except UploadRefused as refused:
                print(refused.status, refused)
        """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("413 ") == len(BOMBS), run.stdout


def test_a_source_file_is_stored_under_its_name_a_script_executable(tmp_path):
    (tmp_path / "sent").write_text("print(4)\n")
    got = unpack(tmp_path / "sent", "my_bot.py", tmp_path / "a", UploadCaps())
    assert got.kind == "file" and got.files == ("my_bot.py",) and got.wheel is None
    assert (tmp_path / "a" / "my_bot.py").read_text() == "print(4)\n"
    assert not os.access(tmp_path / "a" / "my_bot.py", os.X_OK)
    (tmp_path / "script").write_text("#!/bin/sh\necho 4\n")
    unpack(tmp_path / "script", "bot", tmp_path / "b", UploadCaps())
    assert stat.S_IMODE((tmp_path / "b" / "bot").stat().st_mode) == 0o755


def test_a_zip_of_a_cpp_bot_unpacks_whole_with_its_modes(tmp_path):
    (tmp_path / "sent").mkdir()
    upload, filename = accepted_zip_of_cpp_bot(tmp_path / "sent")
    got = unpack(upload, filename, tmp_path / "dest", UploadCaps())
    assert got.kind == "zip"
    assert got.files == ("cpp-bot/Makefile", "cpp-bot/bot.cpp", "cpp-bot/build/.keep", "cpp-bot/run.sh",
                         "cpp-bot/util.h")
    bot = tmp_path / "dest" / "cpp-bot"
    assert (bot / "Makefile").read_text().startswith("bot: bot.cpp")
    assert stat.S_IMODE((bot / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((bot / "bot.cpp").stat().st_mode) == 0o644
    if shutil.which("make") and shutil.which("g++"):
        built = subprocess.run(["make", "-s"], cwd=bot, capture_output=True, text=True, timeout=120)
        assert built.returncode == 0 and (bot / "bot").exists(), built.stderr


def test_a_tar_gz_of_dot_unpacks_without_its_leading_dot(tmp_path):
    # `tar czf bot.tgz .` names its members '.', './bot.py', './lib/', ...
    (tmp_path / "sent").mkdir()
    upload, _ = write_tgz(tmp_path / "sent", "bot.tgz", [
        TarMember(".", type=tarfile.DIRTYPE), TarMember("./bot.py", b"print(1)\n"),
        TarMember("./lib", type=tarfile.DIRTYPE), TarMember("./lib/util.py", b"X = 1\n"),
        TarMember("./empty", type=tarfile.DIRTYPE)])
    got = unpack(upload, "bot.tar.gz", tmp_path / "dest", UploadCaps())
    assert got.kind == "tar" and got.files == ("bot.py", "lib/util.py")
    assert (tmp_path / "dest" / "lib" / "util.py").read_text() == "X = 1\n"
    assert (tmp_path / "dest" / "empty").is_dir()


def test_a_hand_made_wheel_is_read_from_its_metadata_and_never_imported(tmp_path):
    # the wheel every hostile wheel differs from by one thing
    (tmp_path / "sent").mkdir()
    upload, filename = write_wheel(tmp_path / "sent", wheel_files(
        requires=("bot-arena", "pyyaml>=5", "pywin32>=1; sys_platform == 'win32'", "pytest; extra == 'test'")))
    got = unpack(upload, filename, tmp_path / "dest", UploadCaps())
    assert got.wheel == WheelInfo("arena-tiny", "0.1.0", (("tiny", "arena_tiny"),), ("bot-arena", "pyyaml>=5"))
    assert "arena_tiny.py" in got.files and "arena_tiny-0.1.0.dist-info/RECORD" in got.files
    assert (tmp_path / "dest" / "arena_tiny.py").read_bytes().startswith(b'"""A plugin module')
    assert "arena_tiny" not in sys.modules


def test_a_wheel_built_by_setuptools_lists_its_arena_entry_point(tmp_path, example_plugin_wheel):
    wheel = example_plugin_wheel     # built by pip with setuptools (tests/conftest.py)
    got = unpack(wheel, wheel.name, tmp_path / "dest", UploadCaps())
    assert got.kind == "wheel" and got.wheel is not None
    assert got.wheel.name == "arena-example-plugin" and got.wheel.version == "0.1.0"
    assert got.wheel.entry_points == (("example", "arena_example_plugin"),)
    assert got.wheel.requires == ("bot-arena",) and missing_requirements(got.wheel.requires) == []
    assert (tmp_path / "dest" / "arena_example_plugin.py").read_text() == \
        (ROOT / "examples" / "arena-example-plugin" / "arena_example_plugin.py").read_text()
    assert "arena_example_plugin" not in sys.modules


def mutants(data: bytes, rng: random.Random, count: int) -> Iterator[bytes]:
    """count copies of data, each with a few bytes changed, inserted or cut off."""
    for _ in range(count):
        b = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            at, roll = rng.randrange(len(b)), rng.random()
            if roll < 0.6:
                b[at] = rng.randrange(256)
            elif roll < 0.8 and at > 1:
                del b[at:]
            else:
                b[at:at] = rng.randbytes(rng.randint(1, 8))
        yield bytes(b)


def test_damaged_archives_are_refused_or_unpacked_and_never_raise_anything_else(tmp_path):
    # 360 damaged zips, wheels and tar.gz (the tar changed before it is compressed, as gzip's
    # CRC is read only at the end): before, an offset before the archive raised OSError
    # from seek and a zip version from the future NotImplementedError
    (tmp_path / "sent").mkdir()
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w", format=tarfile.PAX_FORMAT) as out:
        for name, data in (("a/b.py", b"x" * 3000), ("c", b"y" * 700), ("l" * 90, b"long")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    seeds = [(accepted_zip_of_cpp_bot(tmp_path / "sent")[0].read_bytes(), "bot.zip", lambda b: b),
             (write_wheel(tmp_path / "sent", wheel_files())[0].read_bytes(), "arena_tiny-0.1.0-py3-none-any.whl",
              lambda b: b),
             (tar.getvalue(), "bot.tgz", gzip.compress)]
    rng, outcomes = random.Random(27), collections.Counter()
    for data, filename, finish in seeds:
        for mutant in mutants(data, rng, 120):
            (tmp_path / "upload").write_bytes(finish(mutant))
            try:
                unpack(tmp_path / "upload", filename, tmp_path / "dest", UploadCaps())
                outcomes["unpacked"] += 1
                shutil.rmtree(tmp_path / "dest")
            except UploadRefused as refused:
                outcomes[refused.status] += 1
                assert list((tmp_path / "dest").iterdir()) == []
    assert outcomes[400] > 180 and sum(outcomes.values()) == 360, outcomes


def test_caps_are_the_ones_given(tmp_path):
    (tmp_path / "sent").mkdir()
    upload, filename = accepted_zip_of_cpp_bot(tmp_path / "sent")
    for caps, status, fragment in ((UploadCaps(files=3), 413, "more than 3 files"),
                                   (UploadCaps(unpacked_bytes=100), 413, "past 100 bytes unpacked"),
                                   (UploadCaps(depth=1), 400, "deeper than 1 directories"),
                                   (UploadCaps(name_chars=12), 400, "longer than 12 characters"),
                                   (UploadCaps(upload_bytes=100), 413, "larger than 100 bytes")):
        with pytest.raises(UploadRefused) as refused:
            unpack(upload, filename, tmp_path / "dest", caps)
        assert refused.value.status == status and fragment in str(refused.value)
        assert list((tmp_path / "dest").iterdir()) == []


def test_the_destination_must_be_empty(tmp_path):
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "theirs.py").write_text("x")
    (tmp_path / "sent").write_text("x")
    with pytest.raises(ValueError, match="must be empty"):
        unpack(tmp_path / "sent", "bot.py", tmp_path / "dest", UploadCaps())
    assert (tmp_path / "dest" / "theirs.py").read_text() == "x"


def test_the_sink_refuses_the_chunk_that_passes_the_cap_and_deletes_the_partial_file(tmp_path):
    caps = UploadCaps(upload_bytes=10)
    sink = UploadSink(tmp_path / "up", caps)
    sink.write(b"12345")
    sink.write(b"67890")
    assert sink.close() == 10 and (tmp_path / "up").read_bytes() == b"1234567890"
    sink = UploadSink(tmp_path / "up2", caps)
    sink.write(b"123456789")
    with pytest.raises(UploadRefused) as refused:
        sink.write(b"01")
    assert refused.value.status == 413 and "larger than 10 bytes" in str(refused.value)
    assert not (tmp_path / "up2").exists()
    with pytest.raises(OSError), UploadSink(tmp_path / "up3", caps) as broken:
        broken.write(b"1")
        raise OSError("the client went away")
    assert not (tmp_path / "up3").exists()
    with pytest.raises(FileExistsError):
        UploadSink(tmp_path / "up", caps)


def test_missing_requirements_names_each_with_what_is_installed():
    pyyaml = importlib.metadata.version("pyyaml")
    assert missing_requirements([
        "numpy-does-not-exist>=1", "pyyaml<5", "PyYAML>=5", "pluggy[extra]>=1",
        "not-here-either; python_version < '3'", "pytest; extra == 'test'", "what is this",
    ]) == ["numpy-does-not-exist>=1 (not installed)", f"pyyaml<5 ({pyyaml} installed)",
           "what is this (not a requirement specifier)"]


@pytest.mark.parametrize("name", ["a", "mcts", "bot-2", "my_bot", "0x", "a" * 32])
def test_valid_names(name):
    assert valid_name(name) is None


@pytest.mark.parametrize("name", ["", "A", "Bot", "-x", "_x", "a" * 33, "a b", "a/b", "../a", "é", "ok\n", "a.b"])
def test_invalid_names_say_what_is_allowed(name):
    why = valid_name(name)
    assert why is not None and repr(name) in why and "lowercase letters, digits" in why


def test_files_and_directories_are_world_readable_whatever_the_umask(tmp_path):
    # bots run under other uids and read their directory read-only (docs/server.md, The build)
    (tmp_path / "sent").mkdir()
    script = tmp_path / "sent" / "script"
    script.write_text("#!/bin/sh\necho 4\n")
    umask = os.umask(0o077)
    try:
        unpack(*accepted_zip_of_cpp_bot(tmp_path / "sent"), tmp_path / "zip", UploadCaps())
        unpack(*write_tgz(tmp_path / "sent", "bot.tgz", [TarMember("lib/util.py", b"X = 1\n")]), tmp_path / "tar",
               UploadCaps())
        unpack(script, "bot", tmp_path / "file", UploadCaps())
    finally:
        os.umask(umask)
    modes = {str(path.relative_to(tmp_path)): stat.S_IMODE(path.stat().st_mode)
             for path in sorted([*tmp_path.glob("[zft]*"), *tmp_path.glob("[zft]*/**/*")])}
    assert modes == {"file": 0o755, "tar": 0o755, "zip": 0o755, "file/bot": 0o755, "tar/lib": 0o755,
                     "tar/lib/util.py": 0o644, "zip/cpp-bot": 0o755,
                     "zip/cpp-bot/Makefile": 0o644, "zip/cpp-bot/bot.cpp": 0o644, "zip/cpp-bot/build": 0o755,
                     "zip/cpp-bot/build/.keep": 0o644, "zip/cpp-bot/run.sh": 0o755, "zip/cpp-bot/util.h": 0o644}
