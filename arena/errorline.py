"""The line of a bot's stderr that says why it failed: the error line of the trace a runtime
printed as the bot died (`ReferenceError: ...` above node's stack and its `Node.js v20`
line, `ValueError: ...` at the end of a Python traceback, `Exception in thread "main" ...`
above Java's frames, `terminate called ...` and its `what():` for C++, `panic: ...` above
Go's goroutines), else the last line that is not part of such a trace."""

from __future__ import annotations

import re

# The patterns are compiled by re on their first use (and kept in its cache), not at import:
# most commands never read a bot's stderr.

#: a line that says what went wrong, as runtimes print it
_ERROR = (
    r"(?:[\w$]+\.)*[\w$]*(?:Error|Exception)\b(?:\s*\[[^\]]*\])?(?::.*)?"   # ValueError: x, java.lang.X
    r"|Exception in thread .*|Caused by: .*|Uncaught .*"
    r"|terminate called .*|panic: .*|fatal error: .*|thread '.*' panicked .*")
#: what a runtime prints around or after its error line: not the cause
_TRACE = (
    r"Node\.js v[\d.]+|\^+|\.\.\. \d+ more|\(Use `node --trace.*"
    r"|note: run with `RUST_BACKTRACE.*|goroutine \d+ \[.*\]:|exit status \d+"
    r"|Traceback \(most recent call last\):|[\w/*-]+\.[\w.()*]+\(.*\)")   # Go's frames: main.main()
#: an error line whose message is on the next line (C++'s what(), Rust's panic message)
_CONTINUED = r"terminate called .*|thread '.*' panicked at .*:"


def _is_trace(raw: str) -> bool:
    """Blank, indented (a stack frame, a source line, a what()), or a trace's own line."""
    line = raw.strip()
    return not line or raw[:1].isspace() or re.fullmatch(_TRACE, line) is not None


def error_line(text: str, limit: int = 200) -> str:
    """The line of a stderr tail that says why the bot failed, at most `limit` characters:
    the error line ending it (what follows it is only its trace), else the last line that
    is no trace's, else the last line; '' for no text."""
    lines = text.splitlines()
    for at in range(len(lines) - 1, -1, -1):
        raw = lines[at]
        line = raw.strip()
        if re.fullmatch(_ERROR, line):
            if re.fullmatch(_CONTINUED, line):
                rest = next((n.strip() for n in lines[at + 1:] if n.strip()), "")
                if rest and not re.fullmatch(_TRACE, rest):
                    line = f"{line} {rest}"
            return line[:limit]
        if not _is_trace(raw):
            above = lines[at - 1].strip() if at else ""
            if re.fullmatch(_ERROR, above) and re.fullmatch(_CONTINUED, above):   # its message
                return f"{above} {line}"[:limit]
            return line[:limit]
    shown = [line.strip() for line in lines if line.strip()]
    return shown[-1][:limit] if shown else ""
