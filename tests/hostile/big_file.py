#!/usr/bin/env python3
"""Writes MB mebibytes to a file in the working directory."""
import errno
import sys

size = int(sys.argv[1]) * 1024 * 1024
name = sys.argv[2] if len(sys.argv) > 2 else "big.bin"
written = 0
chunk = b"x" * (1024 * 1024)
try:
    with open(name, "wb", buffering=0) as file:
        while written < size:
            written += file.write(chunk)
    print("wrote", flush=True)
except OSError as exc:
    print(f"error {errno.errorcode.get(exc.errno, exc.errno)} at {written}", flush=True)
