#!/usr/bin/env python3
"""Fills the working directory with 8 MiB files until something stops it."""
import errno

chunk = b"x" * (8 * 1024 * 1024)
total = 0
try:
    for index in range(1000):  # 8 GB at most
        with open(f"fill{index}.bin", "wb") as file:
            file.write(chunk)
        total += len(chunk)
    print(f"filled {total}", flush=True)
except OSError as exc:
    print(f"error {errno.errorcode.get(exc.errno, exc.errno)} at {total}", flush=True)
