"""An upload taken in whole or not at all: streamed to a file beside the submissions
(the caps applying as it streams), unpacked into a fresh directory there, then moved to
submissions/BOT/N/ by one os.rename inside the transaction that registers it. A crash at
any point leaves either a registered submission with all its files, or a directory whose
name no row holds, which sweep() removes on the next start."""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from arena.referee.botspec import BotSpecError, parse_command, script_index

from .db import ServerDB, Submission
from .uploads import UploadCaps, UploadRefused, UploadSink, missing_requirements, unpack

TEMP_PREFIX = ".incoming-"
FILES_NAMED = 10   #: an upload's files a message lists at most


@dataclass(frozen=True)
class UploadForm:
    """What a participant asked for with an upload (the fields of the form)."""

    bot: str
    command: str = ""
    dialect: str = ""
    build: str = ""


class Incoming:
    """One upload on its way in: where its bytes go, then its unpacked files."""

    def __init__(self, root: Path, caps: UploadCaps) -> None:
        self.root = root
        self.caps = caps
        root.mkdir(parents=True, exist_ok=True)
        tag = secrets.token_hex(8)
        self.upload = root / f"{TEMP_PREFIX}{tag}.upload"
        self.files = root / f"{TEMP_PREFIX}{tag}"
        self.sink: UploadSink | None = None
        self.filename: str | None = None

    def open_sink(self, _field: str, filename: str) -> UploadSink:
        """The sink the form's file streams into (one file per upload)."""
        self.filename = filename
        self.sink = UploadSink(self.upload, self.caps)
        return self.sink

    def register(self, db: ServerDB, owner: int, request: UploadForm, wheel: bool) -> Submission:
        """Unpack the upload and register it as the bot's next submission; UploadRefused
        (nothing kept) when it cannot be taken."""
        if self.filename is None or not self.upload.exists():
            raise UploadRefused("no file in the form: send the bot's source file, archive or wheel "
                                "as the field 'file'", 400)
        unpacked = unpack(self.upload, self.filename, self.files, self.caps)
        self.upload.unlink(missing_ok=True)
        if wheel != (unpacked.kind == "wheel"):
            raise UploadRefused("a wheel goes with --wheel (the form's 'wheel' choice), and only a wheel"
                                if not wheel else f"{self.filename!r} is not a wheel (.whl)", 400)
        if unpacked.wheel is not None:
            if not unpacked.wheel.entry_points:
                raise UploadRefused(f"{self.filename!r} declares no 'arena' entry point: it is no bot "
                                    "plugin (docs/plugins.md)", 400)
            missing = missing_requirements(unpacked.wheel.requires)
            if missing:
                raise UploadRefused(f"{self.filename!r} needs packages this server does not have: "
                                    f"{', '.join(missing)}", 400)
        elif not request.command:
            raise UploadRefused("give the command that runs the bot (for example 'python3 bot.py')", 400)
        folder = self.root / request.bot
        placed: list[Path] = []

        def place(number: int) -> Path:
            folder.mkdir(exist_ok=True)
            target = folder / str(number)
            self.files.rename(target)
            placed.append(target)
            return target

        try:
            return db.register(owner, request.bot, unpacked.kind, place, command=request.command,
                               dialect=request.dialect, build=request.build)
        except BaseException:   # the row was not written: its files go (a kill -9 leaves them to sweep())
            for target in placed:
                shutil.rmtree(target, ignore_errors=True)
            raise

    def discard(self) -> None:
        """Remove whatever this upload left (a refused or broken one)."""
        if self.sink is not None:
            self.sink.abort()
        self.upload.unlink(missing_ok=True)
        shutil.rmtree(self.files, ignore_errors=True)


def sweep(root: Path, db: ServerDB) -> list[Path]:
    """Remove the uploads a crash left half-way (temp files, directories no row names);
    the paths removed."""
    if not root.is_dir():
        return []
    registered = {Path(d).resolve() for d in db.directories()}
    removed = []
    for path in sorted(root.iterdir()):
        if path.name.startswith(TEMP_PREFIX):
            removed.append(path)
        elif path.is_dir() and not path.is_symlink():
            for version in sorted(path.iterdir()):
                if version.resolve() not in registered:
                    removed.append(version)
    for path in removed:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    return removed


def absolute_command(command: str, folder: Path) -> str:
    """The command with each word that names a file of the submission made absolute, so the
    roster (which lies beside the organiser's config) runs it from anywhere."""
    words = []
    for word in shlex.split(command):
        path = folder / word
        inside = path.resolve().is_relative_to(folder.resolve())
        words.append(str(path.resolve()) if inside and not word.startswith("-") and path.exists() else word)
    return shlex.join(words)


def command_problem(command: str, folder: Path) -> str | None:
    """Why a submission's command cannot run its files, in its owner's terms (the command as
    they gave it, their upload's files), or None: a program or script it names that is not
    among the files (after the build), a program neither there nor on the server's PATH."""
    try:
        parsed = parse_command(command, folder)
    except BotSpecError as exc:
        return f"command {command!r}: {exc}"
    program = parsed.words[0]
    if "/" in program:
        if parsed.paths[0] is None:
            return f"command {command!r}: {program!r} is not in your upload ({_files(folder)})"
    elif shutil.which(program) is None:
        if (folder / program).exists():
            return f"command {command!r}: for your file {program!r} write './{program}'"
        return f"command {command!r}: there is no program {program!r} on this server"
    index = script_index(parsed.words)
    script = parsed.script_path()
    if index is not None and script is not None and not script.exists():
        return (f"command {command!r}: {os.path.basename(program)} would run {parsed.words[index]!r}, "
                f"which is not in your upload ({_files(folder)})")
    return None


def _files(folder: Path) -> str:
    """An upload's files as its owner knows them: 'its files: bot.py, lib/util.py'."""
    found = sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())
    if not found:
        return "it has no files"
    shown = ", ".join(found[:FILES_NAMED])
    more = len(found) - FILES_NAMED
    return f"its files: {shown}" + (f" and {more} more" if more > 0 else "")
