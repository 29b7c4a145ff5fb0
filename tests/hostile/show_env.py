#!/usr/bin/env python3
"""Prints what the bot can see of its environment."""
import json
import os

print(json.dumps({
    "env": dict(os.environ),
    "cwd": os.getcwd(),
    "uid": os.getuid(),
    "entries": sorted(os.listdir(".")),
    "pidns": os.readlink("/proc/self/ns/pid"),
}), flush=True)
