"""Interleaved wall-clock timing of whole commands, for ratios measured in one run on a noisy machine."""

import os
import statistics
import subprocess
import sys
import time


def wall(argv, env=None):
    """Seconds one run of ARGV took; its exit status is returned too."""
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started, done.returncode


def interleaved(commands, rounds):
    """{name: [seconds, ...]} for COMMANDS {name: argv}, run alternately ROUNDS times after one warm-up each."""
    env = dict(os.environ, NO_COLOR="1")
    for argv in commands.values():
        wall(argv, env)
    times = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            seconds, code = wall(argv, env)
            if code not in (0, 1):
                sys.exit("%s exited %d" % (name, code))
            times[name].append(seconds)
    return times


def summary(times):
    """One line per command: median and range."""
    return "\n".join("  %-28s median %.3f s (min %.3f, max %.3f, n=%d)" % (
        name, statistics.median(v), min(v), max(v), len(v)) for name, v in times.items())
