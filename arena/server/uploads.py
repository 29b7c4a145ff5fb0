"""Receiving a submission: the upload streamed to a file under a cap, then one source file,
a .zip, a .tar.gz or a wheel unpacked into an empty directory, every member checked first.

Nothing of the upload is run or imported here: a wheel's metadata is read as text. Every
refusal is an UploadRefused carrying an HTTP status (400 bad content, 413 over a cap, 415
not a kind we take) and one line naming the upload and the member. Sizes are counted while
unpacking, never taken from the archive's headers, so a lying header stops at the cap.
On a refusal the destination is left empty and nothing was written outside it.
"""

from __future__ import annotations

import email.message
import email.parser
import functools
import hashlib
import io
import os
import re
import shutil
import stat
import struct
import tarfile
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from packaging.tags import Tag, sys_tags
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from arena.errors import ArenaError
from arena.userfiles import kind_of

from .wheelmeta import (
    arena_entry_points,
    b64,
    check_hash,
    missing_requirements,
    read_record,
    requirements,
)

MiB = 1 << 20
CHUNK = 64 * 1024

#: a member unpacking to more than this many times its compressed bytes is refused once it
#: is past RATIO_FROM bytes: source compresses 3-10 times, deflate's limit on zeros is ~1000
MAX_RATIO = 100
RATIO_FROM = 1 * MiB
#: a zip's directory is read only when the signatures of its entries are at most this many
#: times caps.files (a stored archive inside it may hold signatures of its own)
MAX_ENTRIES_PER_FILE = 20
#: WHEEL, METADATA, entry_points.txt and RECORD are read into memory up to this size
METADATA_BYTES = 1 * MiB

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_DRIVE = re.compile(r"[A-Za-z]:")
#: the unicode categories of control, format (e.g. a right-to-left override), surrogate
#: (bytes that are not UTF-8), private-use, unassigned and line/paragraph separator characters
_UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: the first bytes of kinds an upload may be by mistake, to say what a mismatch is
_MAGIC = ((b"PK\x03\x04", "a zip archive"), (b"PK\x05\x06", "a zip archive"), (b"\x1f\x8b", "gzip data"),
          (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
          (b"%PDF", "a PDF document"), (b"\x7fELF", "an ELF executable"), (b"BZh", "bzip2 data"),
          (b"\xfd7zXZ", "xz data"), (b"7z\xbc\xaf", "a 7z archive"), (b"Rar!", "a RAR archive"))
#: names of archives we do not unpack, refused rather than stored as a "source file"
_OTHER_ARCHIVES = (".tar", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst", ".gz", ".bz2", ".xz",
                   ".zst", ".7z", ".rar", ".jar", ".egg")


@dataclass(frozen=True)
class UploadCaps:
    """The limits on one upload: its bytes as sent, and its members once unpacked."""

    upload_bytes: int = 8 * MiB
    files: int = 500
    unpacked_bytes: int = 64 * MiB
    name_chars: int = 100
    depth: int = 16


class UploadRefused(ArenaError):
    """An upload we do not take; .status is the HTTP status (400, 413 or 415), str() one line."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class WheelInfo:
    """What a wheel's metadata says: its `arena` entry points and the requirements that apply here."""

    name: str
    version: str
    entry_points: tuple[tuple[str, str], ...]
    requires: tuple[str, ...]


@dataclass(frozen=True)
class Unpacked:
    """An unpacked upload: its kind ("file", "zip", "tar" or "wheel") and its files' relative paths."""

    kind: str
    files: tuple[str, ...]
    wheel: WheelInfo | None = None


class UploadSink:
    """Writes an upload's stream to a new file, refusing (413) at the first chunk past the cap."""

    def __init__(self, path: Path, caps: UploadCaps) -> None:
        self.path, self.caps, self.bytes = Path(path), caps, 0
        self._file: BinaryIO | None = open(self.path, "xb")

    def write(self, chunk: bytes) -> None:
        """Append chunk; past caps.upload_bytes the partial file is deleted and UploadRefused(413) raised."""
        if self._file is None:
            raise ValueError(f"{self.path}: the upload is closed")
        if self.bytes + len(chunk) > self.caps.upload_bytes:
            self.abort()
            raise UploadRefused(f"the upload is larger than {_size(self.caps.upload_bytes)}, the cap on an "
                                f"upload", 413)
        self._file.write(chunk)
        self.bytes += len(chunk)

    def close(self) -> int:
        """Finish the file; the number of bytes written."""
        if self._file is not None:
            self._file.close()
            self._file = None
        return self.bytes

    def abort(self) -> None:
        """Close and delete the partial file (a refused or broken upload)."""
        self.close()
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> UploadSink:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


def valid_name(name: str) -> str | None:
    """Why name cannot be a bot's or a user's name, or None when it can."""
    if _NAME.fullmatch(name):
        return None
    return (f"{name!r} is not allowed as a name: 1 to 32 of lowercase letters, digits, '-' and '_', "
            f"starting with a letter or digit")


def unpack(upload: Path, filename: str, dest: Path, caps: UploadCaps) -> Unpacked:
    """Unpack the upload named filename into dest (an empty directory, made if missing), or
    raise UploadRefused leaving dest empty."""
    dest = Path(dest)
    if not dest.exists():
        dest.mkdir(parents=True)
        dest.chmod(0o755)
    if any(dest.iterdir()):
        raise ValueError(f"{dest}: the destination of an upload must be empty")
    try:
        return _unpack(Path(upload), filename, dest, caps)
    except BaseException:
        _empty(dest)
        raise


def _unpack(upload: Path, filename: str, dest: Path, caps: UploadCaps) -> Unpacked:
    shown = _shown(filename)
    problem = _path_problem(filename, caps)
    if problem is None and "/" in filename:
        problem = "is a path: send the file's name alone"
    if problem:
        raise UploadRefused(f"the upload's file name {filename!r} {problem}")
    size = upload.stat().st_size
    if size > caps.upload_bytes:
        raise UploadRefused(f"{shown}: the upload is larger than {_size(caps.upload_bytes)}, the cap on an upload",
                            413)
    if size == 0:
        raise UploadRefused(f"{shown}: the upload is empty")
    with open(upload, "rb") as f:
        head = f.read(8)
    lower = filename.lower()
    looks = next((what for magic, what in _MAGIC if head.startswith(magic)), None)
    if lower.endswith((".whl", ".zip")):
        if looks != "a zip archive":
            raise UploadRefused(f"{shown} is not a zip archive{_but(looks)}", 415)
        if lower.endswith(".whl"):
            return _unpack_wheel(upload, filename, dest, caps)
        return Unpacked("zip", _unpack_zip(upload, filename, dest, caps, {}))
    if lower.endswith((".tar.gz", ".tgz")):
        if looks != "gzip data":
            raise UploadRefused(f"{shown} is not a gzip-compressed tar archive{_but(looks)}", 415)
        return Unpacked("tar", _unpack_tar(upload, filename, dest, caps))
    if lower.endswith(_OTHER_ARCHIVES):
        raise UploadRefused(f"{shown}: this kind of archive is not taken; send one source file, a .zip, "
                            f"a .tar.gz (or .tgz) or a wheel (.whl)", 415)
    if looks in ("a zip archive", "gzip data"):
        raise UploadRefused(f"{shown} is {looks}: name it .zip, .tar.gz or .whl as it is, or send the source "
                            f"file itself", 415)
    writer = _Writer(dest, filename, caps)
    writer.add(filename, is_dir=False)
    with open(upload, "rb") as f:
        start = f.read(2)
        f.seek(0)
        with writer.create(filename, executable=start == b"#!") as out:
            shutil.copyfileobj(f, out, CHUNK)
    return Unpacked("file", (filename,))


# ---- names and where members land


def _path_problem(name: str, caps: UploadCaps) -> str | None:
    """Why a member's path (or an upload's file name) may not be written, as the end of a
    sentence about it; None if it may."""
    bad = next((c for c in name if unicodedata.category(c) in _UNPRINTABLE), None)
    if bad is not None and "\udc80" <= bad <= "\udcff":   # a byte read with surrogateescape
        return f"is not UTF-8 (it has the byte {ord(bad) - 0xdc00:#04x})"
    if bad is not None:
        return f"has a control or unprintable character ({bad!r}) in it"
    if not name:
        return "is empty"
    if "\\" in name:
        return "has a backslash in it (paths are written with '/')"
    if name.startswith("/"):
        return "is an absolute path"
    if _DRIVE.match(name):
        return "starts with a drive letter"
    if len(name) > caps.name_chars:
        return f"is longer than {caps.name_chars} characters"
    parts = name.split("/")
    if ".." in parts:
        return "has a '..' component: it would land outside the submission's directory"
    if "" in parts or "." in parts:
        return "has an empty or '.' component"
    if len(parts) > caps.depth:
        return f"is deeper than {caps.depth} directories"
    if any(len(part.encode("utf-8", "surrogateescape")) > 255 for part in parts):
        return "has a component longer than 255 bytes"
    return None


def _member_path(name: str) -> tuple[str, bool]:
    """A member's name without its leading './' (tar of '.') and trailing '/' (a directory)."""
    is_dir = name.endswith("/")
    name = name.rstrip("/") if is_dir else name
    while name.startswith("./"):
        name = name[2:]
    return ("" if name == "." else name), is_dir


class _Writer:
    """Creates the members' files and directories under dest, each once, checking that no
    two names differ only in case or Unicode normalization and that a file is not also a directory."""

    def __init__(self, dest: Path, filename: str, caps: UploadCaps) -> None:
        self.dest, self.shown, self.caps = dest, _shown(filename), caps
        self.kinds: dict[str, tuple[str, bool]] = {}  # folded path -> (path, is a directory)
        self.files: list[str] = []
        self.unpacked = 0

    def refuse(self, path: str, problem: str, status: int = 400) -> UploadRefused:
        return UploadRefused(f"{self.shown}: member {path!r} {problem}", status)

    def add(self, path: str, is_dir: bool) -> None:
        """Record a member (and its parent directories), refusing a clash with one already there."""
        parts = path.split("/")
        for depth in range(1, len(parts) + 1):
            sub, sub_is_dir = "/".join(parts[:depth]), depth < len(parts) or is_dir
            key = unicodedata.normalize("NFC", sub).casefold()
            seen = self.kinds.get(key)
            if seen is None:
                self.kinds[key] = (sub, sub_is_dir)
                if not sub_is_dir:
                    self.files.append(sub)
                    if len(self.files) > self.caps.files:
                        raise self.refuse(path, f"is one more than {self.caps.files} files, the cap on files", 413)
                continue
            other, other_is_dir = seen
            if other == sub and other_is_dir and sub_is_dir:
                continue
            if other != sub:
                raise self.refuse(path, f"and {other!r} differ only in case or Unicode normalization "
                                        f"(they would be one file on many file systems)")
            if not (other_is_dir or sub_is_dir):
                raise self.refuse(path, "is in the archive twice")
            raise self.refuse(path, f"needs {sub!r} to be both a file and a directory")

    def create(self, path: str, executable: bool) -> BinaryIO:
        """A new file for path (recorded by add): never one that is there, never through a link.
        Modes are set whatever the umask: bots run under other uids and read their files."""
        *parents, name = path.split("/")
        target = self.make_dir("/".join(parents))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(target / name, flags, 0o600)
        os.fchmod(fd, 0o755 if executable else 0o644)
        return os.fdopen(fd, "wb")

    def make_dir(self, path: str) -> Path:
        """The directory path under dest (recorded by add), made with mode 0755 where missing."""
        target = self.dest
        for part in path.split("/") if path else ():
            target = target / part
            if not target.is_dir():
                target.mkdir()
                target.chmod(0o755)
        return target

    def count(self, path: str, more: int) -> None:
        """Count bytes about to be written to path against the cap on unpacked bytes."""
        self.unpacked += more
        if self.unpacked > self.caps.unpacked_bytes:
            raise self.refuse(path, f"takes the upload past {_size(self.caps.unpacked_bytes)} unpacked, the cap "
                                    f"on unpacked bytes", 413)


# ---- zip and wheel


def _open_zip(upload: Path, filename: str, caps: UploadCaps) -> zipfile.ZipFile:
    """The zip's directory read by zipfile, once we know it is not too long to read: zipfile
    makes an object of every entry (100,000 entries, 4.7 MB of them: 0.26 s of CPU and 28 MB).
    Each entry starts with its signature, so the signatures in the file bound their number."""
    with open(upload, "rb") as f:
        entries = f.read(caps.upload_bytes + 1).count(b"PK\x01\x02")
    if entries > MAX_ENTRIES_PER_FILE * caps.files:
        raise UploadRefused(f"{_shown(filename)} has {entries} entries in its directory, far more than "
                            f"{caps.files} files, the cap on files", 413)
    try:
        return zipfile.ZipFile(upload)
    # zipfile raises NotImplementedError for a compression method it lacks, struct.error,
    # ValueError or EOFError for a directory cut short: each a damaged or foreign zip here
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, struct.error, OSError, ValueError,
            EOFError) as exc:
        raise UploadRefused(f"{_shown(filename)} is a corrupt or truncated zip archive ({exc})") from None


def _zip_members(zf: zipfile.ZipFile, writer: _Writer, size: int
                 ) -> tuple[list[tuple[zipfile.ZipInfo, str]], list[str]]:
    """Check every member of the directory before anything is written; the files, each with
    its path, and the directories."""
    infos = zf.infolist()
    if len(infos) > 4 * writer.caps.files:
        raise UploadRefused(f"{writer.shown} has {len(infos)} members, more than {writer.caps.files} files, "
                            f"the cap on files", 413)
    files: list[tuple[zipfile.ZipInfo, str]] = []
    dirs: list[str] = []
    declared = 0
    for info in infos:
        raw = info.orig_filename
        path, is_dir = _member_path(raw)
        if not path:  # '.' or './', the directory itself
            continue
        problem = _path_problem(path, writer.caps)
        if problem:
            raise writer.refuse(raw, problem)
        mode = info.external_attr >> 16
        if info.create_system == 3 and mode and stat.S_IFMT(mode):
            if stat.S_ISLNK(mode):
                raise writer.refuse(raw, "is a symbolic link (links are not unpacked)")
            if stat.S_ISDIR(mode):
                is_dir = True
            elif not stat.S_ISREG(mode):
                raise writer.refuse(raw, f"is {kind_of(mode)}, not a file or a directory")
        if info.flag_bits & 0x41:
            raise writer.refuse(raw, "is encrypted (send it without a password)")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise writer.refuse(raw, f"is compressed with method {info.compress_type}; only deflate and store "
                                     f"are taken", 415)
        writer.add(path, is_dir)
        if is_dir:
            dirs.append(path)
            continue
        declared += info.file_size
        if declared > writer.caps.unpacked_bytes:
            raise writer.refuse(raw, f"declares {_size(info.file_size)}, which takes the upload past "
                                     f"{_size(writer.caps.unpacked_bytes)} unpacked, the cap on unpacked bytes", 413)
        files.append((info, path))
    if not files:
        raise UploadRefused(f"{writer.shown} is an empty archive: it holds no files")
    _check_layout(files, writer, size)
    return files, dirs


def _check_layout(files: list[tuple[zipfile.ZipInfo, str]], writer: _Writer, size: int) -> None:
    """Refuse members whose compressed data overlap (one deflate stream read as many files,
    the trick of the non-recursive zip bomb) or run past the end of the archive."""
    spans = sorted((info.header_offset, info.header_offset + 30 + len(info.orig_filename) + info.compress_size,
                    info.orig_filename) for info, _ in files)
    if spans and spans[0][0] < 0:
        raise writer.refuse(spans[0][2], "starts before the archive does (corrupt archive)")
    for (_, end, name), (start, _, other) in zip(spans, spans[1:]):
        if start < end:
            raise writer.refuse(name, f"and {other!r} overlap in the archive (a zip bomb's trick)")
    if spans and spans[-1][1] > size:
        raise writer.refuse(spans[-1][2], "runs past the end of the archive (corrupt or truncated)")


def _member_chunks(f: BinaryIO, info: zipfile.ZipInfo, writer: _Writer) -> Iterator[bytes]:
    """The bytes of a member, read from its local header on by our own inflater: sizes and
    the CRC are checked as the data comes, the directory's declared size never trusted."""
    raw = info.orig_filename
    f.seek(info.header_offset)
    header = f.read(30)
    if len(header) < 30 or header[:4] != b"PK\x03\x04":
        raise writer.refuse(raw, "has no local header where the directory says (corrupt archive)")
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    local_name = f.read(name_len)
    expected_name = raw.encode("utf-8" if info.flag_bits & 0x800 else "cp437", "replace")
    if local_name != expected_name:
        raise writer.refuse(raw, f"is named {local_name!r} in its local header (corrupt archive)")
    f.seek(extra_len, io.SEEK_CUR)
    left, crc, written = info.compress_size, 0, 0
    inflater = zlib.decompressobj(-zlib.MAX_WBITS) if info.compress_type == zipfile.ZIP_DEFLATED else None
    pending = b""
    while True:
        if not pending:
            if left == 0:
                break
            pending = f.read(min(CHUNK, left))
            if not pending:
                raise writer.refuse(raw, "is cut short (truncated archive)")
            left -= len(pending)
        if inflater is None:
            out, pending = pending, b""
        else:
            try:
                out = inflater.decompress(pending, CHUNK)
            except zlib.error as exc:
                raise writer.refuse(raw, f"is corrupt ({exc})") from None
            pending = inflater.unconsumed_tail
        consumed = info.compress_size - left - len(pending)
        written += len(out)
        if written > info.file_size:
            raise writer.refuse(raw, f"unpacks to more than the {info.file_size} bytes its header declares "
                                     f"(a zip bomb's lie)", 413)
        if written > RATIO_FROM and written > MAX_RATIO * consumed:
            raise writer.refuse(raw, f"unpacks to more than {MAX_RATIO} times its compressed size (a zip bomb?)",
                                413)
        crc = zlib.crc32(out, crc)
        yield out
        if inflater is not None and inflater.eof:
            if left or inflater.unused_data or pending:
                raise writer.refuse(raw, "has a compressed size that does not match its data (corrupt archive)")
            break
    if inflater is not None and not inflater.eof:
        raise writer.refuse(raw, "is cut short (truncated archive)")
    if written != info.file_size or crc != info.CRC:
        raise writer.refuse(raw, "does not match its size or CRC (corrupt archive)")


def _unpack_zip(upload: Path, filename: str, dest: Path, caps: UploadCaps, hashes: dict[str, tuple[str, str]]
                ) -> tuple[str, ...]:
    """Unpack a zip's members into dest; with hashes (a wheel's RECORD), check each file's digest."""
    writer = _Writer(dest, filename, caps)
    with _open_zip(upload, filename, caps) as zf:
        files, dirs = _zip_members(zf, writer, upload.stat().st_size)
    with open(upload, "rb") as f:
        for path in dirs:
            writer.make_dir(path)
        for info, path in files:
            digest = hashlib.new(hashes[path][0]) if path in hashes else None
            executable = info.create_system == 3 and bool((info.external_attr >> 16) & 0o111)
            with writer.create(path, executable) as out:
                for chunk in _member_chunks(f, info, writer):
                    writer.count(info.orig_filename, len(chunk))
                    if digest is not None:
                        digest.update(chunk)
                    out.write(chunk)
            if digest is not None and b64(digest.digest()) != hashes[path][1]:
                raise writer.refuse(info.orig_filename, "does not match its hash in the wheel's RECORD")
    return tuple(sorted(path for _, path in files))


def _read_member(f: BinaryIO, info: zipfile.ZipInfo, writer: _Writer) -> bytes:
    """A small member's bytes, in memory (a wheel's metadata files)."""
    if info.file_size > METADATA_BYTES:
        raise writer.refuse(info.orig_filename, f"is larger than {_size(METADATA_BYTES)}, too large for metadata",
                            413)
    return b"".join(_member_chunks(f, info, writer))


def _unpack_wheel(upload: Path, filename: str, dest: Path, caps: UploadCaps) -> Unpacked:
    """A wheel unpacked as an installer lays it into site-packages, but only into dest; refused
    unless it declares `arena` entry points and nothing else that an install would run or place."""
    shown = _shown(filename)
    try:
        name, version, _, tags = parse_wheel_filename(filename)
    except InvalidWheelFilename as exc:
        raise UploadRefused(f"{shown} is not a wheel's file name, NAME-VERSION-PYTHON-ABI-PLATFORM.whl "
                            f"({exc})") from None
    if not tags & _loadable_tags():
        raise UploadRefused(f"{shown} is built for {', '.join(sorted(map(str, tags)))}, which this Python "
                            f"({next(iter(sys_tags()))}) cannot load", 415)
    writer = _Writer(Path(os.devnull), filename, caps)
    with _open_zip(upload, filename, caps) as zf:
        files, _ = _zip_members(zf, writer, upload.stat().st_size)
    by_path = {path: info for info, path in files}
    info_dirs = sorted({path.split("/")[0] for path in by_path if path.split("/")[0].endswith(".dist-info")})
    for path in by_path:
        top = path.split("/")[0]
        if top.endswith(".data"):
            raise writer.refuse(path, "is in a .data directory (scripts, headers or files installed elsewhere "
                                      "than the package are not taken)")
        if path.endswith(".pth"):
            raise writer.refuse(path, "is a .pth file (Python runs those at every start)")
    if len(info_dirs) != 1:
        raise UploadRefused(f"{shown} has {len(info_dirs)} .dist-info directories; a wheel has one")
    info_dir = info_dirs[0]
    if canonicalize_name(info_dir.removesuffix(".dist-info").rpartition("-")[0]) != name:
        raise UploadRefused(f"{shown}: its {info_dir} does not name the wheel's project {name!r}")

    def read(member: str, required: bool = True) -> str | None:
        info = by_path.get(f"{info_dir}/{member}")
        if info is None:
            if required:
                raise UploadRefused(f"{shown} has no {info_dir}/{member}")
            return None
        with open(upload, "rb") as f:
            data = _read_member(f, info, writer)
        if member != "RECORD":
            check_hash(writer, record, f"{info_dir}/{member}", data)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise writer.refuse(f"{info_dir}/{member}", "is not UTF-8 text") from None

    record: dict[str, tuple[str, str]] = {}
    record = read_record(writer, read("RECORD") or "", f"{info_dir}/RECORD", set(by_path))
    wheel = email.parser.Parser().parsestr(read("WHEEL") or "")
    if (wheel.get("Wheel-Version") or "").split(".")[0] != "1":
        raise writer.refuse(f"{info_dir}/WHEEL", f"has Wheel-Version {wheel.get('Wheel-Version')!r}; 1.x is taken")
    metadata = email.parser.Parser().parsestr(read("METADATA") or "")
    info = WheelInfo(name=str(metadata.get("Name") or ""), version=str(metadata.get("Version") or ""),
                     entry_points=arena_entry_points(writer, read("entry_points.txt", required=False),
                                                      f"{info_dir}/entry_points.txt"),
                     requires=requirements(writer, metadata, f"{info_dir}/METADATA"))
    if canonicalize_name(info.name) != name or not info.version:
        raise writer.refuse(f"{info_dir}/METADATA", f"names {info.name!r} {info.version!r}, not the wheel's {name!r}")
    try:
        same_version = Version(info.version) == version
    except InvalidVersion:
        same_version = False
    if not same_version:
        raise writer.refuse(f"{info_dir}/METADATA", f"has version {info.version!r}, the file name {str(version)!r}")
    missing = missing_requirements(info.requires)
    if missing:
        raise UploadRefused(f"{shown} needs what this server does not have: {', '.join(missing)}")
    files_written = _unpack_zip(upload, filename, dest, caps, record)
    return Unpacked("wheel", files_written, info)


@functools.cache
def _loadable_tags() -> frozenset[Tag]:
    """The wheel tags this Python can load (about 1,000, some milliseconds to list)."""
    return frozenset(sys_tags())


# ---- tar.gz


class _TarStream(io.RawIOBase):
    """The tar inside a .tar.gz, inflated here a chunk at a time for tarfile: it knows the
    compressed bytes consumed (for the ratio), and refuses once the bytes that are no
    member's data (headers, long names, pax records, padding) pass a bound, as tarfile reads
    each header whole into memory."""

    def __init__(self, raw: BinaryIO, writer: _Writer) -> None:
        self.raw, self.writer = raw, writer
        self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip: its header, CRC and length checked
        self.pending, self.raw_bytes, self.out_bytes = b"", 0, 0
        # a header, a long-name or pax header with its name and 511 bytes of padding per member,
        # the end blocks, and what tarfile's and our buffers hold ahead
        self.overhead = 2560 * (writer.caps.files + 8) + 20 * 512 + 4 * CHUNK

    def readable(self) -> bool:
        return True

    def consumed(self) -> int:
        """The compressed bytes inflated so far."""
        return self.raw_bytes - len(self.pending)

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self.inflater.eof:
            if not self.pending:
                self.pending = self.raw.read(CHUNK)
                if not self.pending:
                    raise EOFError("the gzip stream is cut short")
                self.raw_bytes += len(self.pending)
            data = self.inflater.decompress(self.pending, len(buffer))
            self.pending = self.inflater.unconsumed_tail
            if data:
                self.out_bytes += len(data)
                if self.out_bytes - self.writer.unpacked > self.overhead:
                    raise UploadRefused(f"{self.writer.shown}: its tar headers take more than "
                                        f"{_size(self.overhead)} (a pax or long-name header bomb?)", 413)
                buffer[:len(data)] = data
                return len(data)
        return 0


def _unpack_tar(upload: Path, filename: str, dest: Path, caps: UploadCaps) -> tuple[str, ...]:
    """Unpack a gzip-compressed tar member by member as it streams (tarfile's 'r|' mode), each
    member checked before any of its bytes are written, then read the gzip stream to its end
    so that its CRC is checked."""
    writer = _Writer(dest, filename, caps)
    with open(upload, "rb") as raw:
        stream = _TarStream(raw, writer)
        try:
            with tarfile.open(fileobj=io.BufferedReader(stream, CHUNK), mode="r|") as tar:
                for member in tar:
                    _tar_member(tar, member, writer, stream)
            while stream.read(CHUNK):
                pass
        except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
            raise UploadRefused(f"{writer.shown} is a corrupt or truncated tar.gz archive ({exc})") from None
    if not writer.files:
        raise UploadRefused(f"{writer.shown} is an empty archive: it holds no files")
    return tuple(sorted(writer.files))


def _tar_member(tar: tarfile.TarFile, member: tarfile.TarInfo, writer: _Writer, stream: _TarStream) -> None:
    name = member.name
    path, is_dir = _member_path(name + "/" if member.isdir() else name)
    problem = _path_problem(path, writer.caps) if path else None
    if problem:
        raise writer.refuse(name, problem)
    if member.issym():
        raise writer.refuse(name, f"is a symbolic link (to {member.linkname!r}); links are not unpacked")
    if member.islnk():
        raise writer.refuse(name, f"is a hard link (to {member.linkname!r}); links are not unpacked")
    if member.ischr() or member.isblk():
        raise writer.refuse(name, f"is a {'character' if member.ischr() else 'block'} device, not a file or a "
                                  f"directory")
    if member.isfifo():
        raise writer.refuse(name, "is a FIFO (named pipe), not a file or a directory")
    if member.issparse():
        raise writer.refuse(name, "is a sparse file; send it whole")
    if not (member.isreg() or member.isdir()):
        raise writer.refuse(name, f"is of tar type {member.type!r}, not a file or a directory")
    if not path:
        return
    writer.add(path, is_dir)
    if is_dir:
        writer.make_dir(path)
        return
    if writer.unpacked + member.size > writer.caps.unpacked_bytes:
        raise writer.refuse(name, f"declares {_size(member.size)}, which takes the upload past "
                                  f"{_size(writer.caps.unpacked_bytes)} unpacked, the cap on unpacked bytes", 413)
    source = tar.extractfile(member)
    assert source is not None  # a regular member
    with writer.create(path, executable=bool(member.mode & 0o111)) as out:
        while chunk := source.read(CHUNK):
            writer.count(name, len(chunk))
            if writer.unpacked > RATIO_FROM and writer.unpacked > MAX_RATIO * stream.consumed():
                raise writer.refuse(name, f"takes the upload past {MAX_RATIO} times its compressed size "
                                          f"(a tar bomb?)", 413)
            out.write(chunk)


# ---- small helpers


def _empty(dest: Path) -> None:
    """Remove what unpacking made in dest (regular files and directories only)."""
    for child in dest.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _shown(name: str) -> str:
    printable = name and all(unicodedata.category(c) not in _UNPRINTABLE for c in name)
    return name if printable and name.strip() == name else repr(name)


def _but(looks: str | None) -> str:
    return f" (it is {looks})" if looks else ""


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", MiB), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.{0 if n % scale == 0 else 1}f} {unit}"
    return f"{n} bytes"
