#!/usr/bin/env python3
"""Runs a command and appends "WALL CPU RSS" to a file: wall seconds, CPU seconds (user +
system, from wait4: microseconds, where /proc and GNU time count 10 ms ticks) and peak
resident kilobytes. The command's output passes through; exits with its status.

    scripts/rusage.py TIMES_FILE [--stdin FILE] -- COMMAND...
"""
import os
import subprocess
import sys
import time

args = sys.argv[1:]
times = args.pop(0)
stdin = None
if args[0] == "--stdin":
    stdin = open(args[1], "rb")
    args = args[2:]
if args[0] == "--":
    args = args[1:]
start = time.monotonic()
child = subprocess.Popen(args, stdin=stdin)
_, status, usage = os.wait4(child.pid, 0)
wall = time.monotonic() - start
with open(times, "a") as out:
    out.write(f"{wall:.6f} {usage.ru_utime + usage.ru_stime:.6f} {usage.ru_maxrss}\n")
sys.exit(os.waitstatus_to_exitcode(status))
