#!/usr/bin/env python3
"""Tries to list a directory the bot was not given."""
import json
import os
import sys

try:
    print("listed " + json.dumps(sorted(os.listdir(sys.argv[1]))), flush=True)
except OSError as exc:
    print(f"denied {type(exc).__name__}", flush=True)
