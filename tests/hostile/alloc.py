#!/usr/bin/env python3
"""Allocates MB mebibytes and touches them."""
import sys

try:
    block = bytearray(int(sys.argv[1]) * 1024 * 1024)
    block[::4096] = b"x" * len(block[::4096])
    print("allocated", flush=True)
except MemoryError:
    print("MemoryError", flush=True)
