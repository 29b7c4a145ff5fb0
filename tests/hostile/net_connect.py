#!/usr/bin/env python3
"""Tries to open a TCP connection to 127.0.0.1:PORT."""
import socket
import sys

try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
    print("connected", flush=True)
except OSError as exc:
    print(f"blocked {type(exc).__name__} {exc}", flush=True)
