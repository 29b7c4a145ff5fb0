"""Reading a file a user named (a league config, an openings book, saved game records):
a regular file only, up to a size, as text; every refusal is one line naming the file.

A path may name anything: a FIFO (whose open blocks until a writer comes), /dev/zero
(endless), a directory, or a file of binary bytes. Each is refused here, before it is
read, rather than hanging the command, filling memory or failing deep inside a parser.
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any

from arena.errors import ArenaError

MiB = 1 << 20

#: control characters no text file holds: C0 but tab, newline and carriage return; DEL; C1
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


class UserFileError(ArenaError, ValueError):
    """A file the user named that cannot be read as asked; str() is one line:
    path[:line]: problem."""

    def __init__(self, path: str | os.PathLike[str], problem: str, line: int | None = None) -> None:
        self.path, self.problem, self.line = str(path), problem, line
        super().__init__(f"{path}:{line}: {problem}" if line is not None else f"{path}: {problem}")


def kind_of(mode: int) -> str:
    """What a file mode says a path is, as a person names it."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def not_regular(path: str | os.PathLike[str]) -> str | None:
    """Why path (its symlinks followed) is there but is no regular file ("a FIFO (named
    pipe)", ...), or None when it is a regular file or nothing is there."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else kind_of(mode)


def open_regular(path: str | os.PathLike[str], what: str) -> int:
    """A read-only file descriptor of path, which must be a regular file; UserFileError
    otherwise. Opened without blocking, so a FIFO is refused rather than waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UserFileError(path, f"cannot read the {what}: {exc.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UserFileError(path, f"cannot read the {what}: it is {kind_of(mode)}, not a "
                                  "regular file")
    os.set_blocking(fd, True)
    return fd


def read_bytes(path: str | os.PathLike[str], what: str, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most max_bytes; UserFileError otherwise (a file
    that grows while read is cut at the cap and refused, never read on and on)."""
    fd = open_regular(path, what)
    try:
        with os.fdopen(fd, "rb", closefd=True) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise UserFileError(path, f"cannot read the {what}: {exc.strerror}") from None
    if len(data) > max_bytes:
        raise UserFileError(path, f"cannot read the {what}: it is over {_size(max_bytes)}, "
                                  "the limit for this file")
    return data


def read_text(path: str | os.PathLike[str], what: str, max_bytes: int) -> str:
    """The UTF-8 text of a regular file of at most max_bytes, with no control character
    but tab, newline and carriage return; UserFileError naming the line of a bad byte."""
    data = read_bytes(path, what, max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UserFileError(path, f"cannot read the {what}: not UTF-8 text (byte "
                                  f"0x{data[exc.start]:02x})", line) from None
    bad = _CONTROL.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        raise UserFileError(path, f"cannot read the {what}: not text (control "
                                  f"character {bad.group()!r})", line)
    return text


NAME_MAX = 255    #: bytes in one file or directory name (Linux's NAME_MAX)
PATH_MAX = 4095   #: bytes in a whole path, made absolute (Linux's PATH_MAX, less its NUL)


def path_problem(text: str, base: str | os.PathLike[str] = ".") -> str | None:
    """What makes text unusable as a path, in words ("holds a NUL character ..."), or None.

    Refused: a NUL (no file name can hold one), any other control character (C0, DEL, C1:
    a name holding one breaks every one-line message and table it is shown in), a name of
    more than NAME_MAX bytes and a path, made absolute from base, of more than PATH_MAX.
    Every path a user gives (a config's value, a command's argument) is checked here."""
    if "\0" in text:
        return "holds a NUL character ('\\x00'), which no file name can hold"
    bad = re.search(r"[\x01-\x1f\x7f-\x9f]", text)
    if bad is not None:
        return f"holds the control character {bad.group()!r}, which arena refuses in a path"
    try:
        whole = os.fsencode(os.path.join(os.path.abspath(base), os.path.expanduser(text)))
    except UnicodeEncodeError as exc:   # a lone surrogate, e.g. from YAML's "\ud800"
        return f"holds {exc.object[exc.start]!r}, which is no character"
    for name in text.split("/"):
        size = len(os.fsencode(name))
        if size > NAME_MAX:
            return (f"names {name[:12]!r}... of {size:,} bytes; a file or directory name holds "
                    f"at most {NAME_MAX}")
    if len(whole) > PATH_MAX:
        return f"is {len(whole):,} bytes long made absolute; a path holds at most {PATH_MAX:,}"
    return None


def shown(text: str, limit: int = 80) -> str:
    """text as a message quotes it: repr, cut with its length said when it is long."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text):,} characters)"


#: the largest file a rule option may name (a tron map of 64x64 is about 4 kB)
RULE_FILE_BYTES = 1 * MiB


def read_rule_file(path: str | os.PathLike[str], choices: Any) -> Any:
    """The value of a rule option that names a file (its choices an arena.games.FromFile):
    the file read as every user file is, its text turned into the value by choices.read;
    UserFileError, one line naming the file (and line) and what is wrong, otherwise."""
    from arena.games import GameOptionError
    wrong = path_problem(str(path))
    if wrong is not None:
        raise UserFileError(shown(str(path)), f"cannot read the {choices.what}: the path {wrong}")
    text = read_text(path, choices.what, RULE_FILE_BYTES)
    try:
        return choices.read(text)
    except GameOptionError as exc:
        raise UserFileError(path, f"not a {choices.what}: {exc}", exc.line) from None


def _size(count: int) -> str:
    return f"{count // MiB} MiB" if count >= MiB and count % MiB == 0 else f"{count:,} bytes"


__all__ = ["MiB", "NAME_MAX", "PATH_MAX", "RULE_FILE_BYTES", "UserFileError", "kind_of",
           "not_regular", "open_regular", "path_problem", "read_bytes", "read_rule_file",
           "read_text", "shown"]

