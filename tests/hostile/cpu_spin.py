#!/usr/bin/env python3
"""Burns CPU: forever, or SECONDS of CPU time and then sleeps. --ignore-xcpu: ignore SIGXCPU."""
import signal
import sys
import time

args = sys.argv[1:]
if "--ignore-xcpu" in args:
    args.remove("--ignore-xcpu")
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
print("spinning", flush=True)
limit = float(args[0]) if args else float("inf")
start = time.process_time()
while time.process_time() - start < limit:
    pass
print("spun", flush=True)
while True:
    time.sleep(1)
