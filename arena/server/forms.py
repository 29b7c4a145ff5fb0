"""A form read as it streams (multipart/form-data or urlencoded): its text fields, capped
in size, and at most one file, written through a sink that refuses it as soon as it is
too big. Nothing of a request is held in memory beyond its text fields."""

from __future__ import annotations

import urllib.parse
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from python_multipart.multipart import MultipartParser, parse_options_header

MAX_FIELDS = 20


class FormRefused(Exception):
    """A request body that is not read: status (4xx) and one line saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Sink(Protocol):
    """Where an uploaded file's bytes go (arena.server.uploads.UploadSink)."""

    def write(self, chunk: bytes) -> None: ...

    def close(self) -> int: ...


class Form:
    """The text fields of a form and the name of its file, if one came."""

    def __init__(self) -> None:
        self.fields: dict[str, str] = {}
        self.filename: str | None = None     #: as the client named it
        self.file_field: str | None = None

    def get(self, name: str, default: str = "") -> str:
        """A text field, stripped; default when absent."""
        return self.fields.get(name, default).strip()


async def read_form(content_type: str, body: AsyncIterator[bytes], field_bytes: int,
                    file_sink: Callable[[str, str], Sink] | None = None) -> Form:
    """Read a form from body as it streams: text fields of at most field_bytes in all,
    and (with file_sink) one file, sent to file_sink(field, filename) chunk by chunk.
    FormRefused (400, 413 or 415) for anything else; a sink's own refusal propagates."""
    kind, params = parse_options_header(content_type.encode("latin-1", "replace"))
    if kind == b"application/x-www-form-urlencoded":
        return await _urlencoded(body, field_bytes)
    if kind != b"multipart/form-data":
        raise FormRefused(415, f"expected a form (multipart/form-data), not {kind.decode('latin-1')[:60]!r}")
    boundary = params.get(b"boundary")
    if not boundary or len(boundary) > 200:
        raise FormRefused(400, "multipart/form-data without a boundary")
    reader = _Multipart(field_bytes, file_sink)
    parser = MultipartParser(boundary, reader.callbacks(), max_header_count=8, max_header_size=4096)
    async for chunk in body:
        try:
            parser.write(chunk)
        except FormRefused:
            raise
        except Exception as exc:   # python-multipart's own parse errors, and a sink's refusal
            if hasattr(exc, "status"):
                raise
            raise FormRefused(400, f"malformed form: {str(exc)[:100]}") from None
        reader.raise_pending()
    parser.finalize()
    reader.raise_pending()
    if not reader.ended:
        raise FormRefused(400, "malformed form: it ends before its last boundary")
    return reader.form


async def _urlencoded(body: AsyncIterator[bytes], field_bytes: int) -> Form:
    data = bytearray()
    async for chunk in body:
        data += chunk
        if len(data) > field_bytes:
            raise FormRefused(413, f"form fields over {field_bytes} bytes")
    form = Form()
    try:
        pairs = urllib.parse.parse_qsl(data.decode(), keep_blank_values=True, max_num_fields=MAX_FIELDS,
                                       strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise FormRefused(400, "malformed form fields") from None
    form.fields.update(pairs)
    return form


class _Multipart:
    """python-multipart's callbacks, filling a Form."""

    def __init__(self, field_bytes: int, file_sink: Callable[[str, str], Sink] | None) -> None:
        self.form = Form()
        self.field_bytes = field_bytes
        self.file_sink = file_sink
        self.text_bytes = 0
        self.header_field = bytearray()
        self.header_value = bytearray()
        self.disposition = b""
        self.value = bytearray()
        self.sink: Sink | None = None
        self.name = ""
        self.ended = False
        self.pending: BaseException | None = None   # raised outside the parser's callback

    def callbacks(self) -> Any:
        return {
            "on_part_begin": self.part_begin, "on_part_data": self.part_data, "on_part_end": self.part_end,
            "on_header_field": lambda d, s, e: self.header_field.extend(d[s:e]),
            "on_header_value": lambda d, s, e: self.header_value.extend(d[s:e]),
            "on_header_end": self.header_end, "on_headers_finished": self.headers_finished,
            "on_end": self.end,
        }

    def raise_pending(self) -> None:
        if self.pending is not None:
            raise self.pending

    def part_begin(self) -> None:
        self.disposition, self.value, self.sink, self.name = b"", bytearray(), None, ""

    def header_end(self) -> None:
        if bytes(self.header_field).lower() == b"content-disposition":
            self.disposition = bytes(self.header_value)
        self.header_field, self.header_value = bytearray(), bytearray()

    def headers_finished(self) -> None:
        if self.pending is not None:
            return
        _kind, params = parse_options_header(self.disposition)
        self.name = params.get(b"name", b"").decode("utf-8", "replace")
        filename = params.get(b"filename")
        if len(self.form.fields) >= MAX_FIELDS:
            self.pending = FormRefused(413, f"more than {MAX_FIELDS} form fields")
        elif filename is not None and self.form.filename is not None:
            self.pending = FormRefused(400, "one file per submission")
        elif filename is not None:
            if self.file_sink is None:
                self.pending = FormRefused(400, f"field {self.name[:40]!r}: no file expected here")
                return
            # bytes that are not UTF-8 kept as surrogates, which the upload's name check
            # refuses, rather than replaced by U+FFFD and stored under another name
            self.form.filename = filename.decode("utf-8", "surrogateescape")
            self.form.file_field = self.name
            try:
                self.sink = self.file_sink(self.name, self.form.filename)
            except Exception as exc:   # a refused name: reported by read_form
                self.pending = exc

    def part_data(self, data: bytes, start: int, end: int) -> None:
        if self.pending is not None:
            return
        if self.sink is not None:
            try:
                self.sink.write(data[start:end])
            except Exception as exc:
                self.pending = exc
            return
        self.text_bytes += end - start
        if self.text_bytes > self.field_bytes:
            self.pending = FormRefused(413, f"form fields over {self.field_bytes} bytes")
            return
        self.value.extend(data[start:end])

    def part_end(self) -> None:
        if self.pending is not None:
            return
        if self.sink is not None:
            self.sink.close()
            self.sink = None
            return
        try:
            self.form.fields[self.name] = self.value.decode("utf-8")
        except UnicodeDecodeError:
            self.pending = FormRefused(400, f"field {self.name[:40]!r} is not UTF-8 text")

    def end(self) -> None:
        self.ended = True
