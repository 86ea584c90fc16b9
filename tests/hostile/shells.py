"""Running printed fix scripts for real: bash, zsh and fish with a PATH of stub commands that log their argv."""

import os
import shutil
import subprocess

import pytest

SHELLS = ("bash", "zsh", "fish")
STUBS = ("python", "python3", "python3.11", "python3.12", "pip", "uv", "conda", "mamba", "brew", "mps-doctor", "arch",
         "softwareupdate", "system_profiler", "nvidia-smi", "ls", "touch", "rm", "curl", "sh", "bash", "zsh", "fish")


def shells():
    missing = [shell for shell in SHELLS if shutil.which(shell) is None]
    if missing and os.environ.get("CI"):
        pytest.fail("shells missing in CI: %s (.ci/run installs them)" % ", ".join(missing))
    return [shell for shell in SHELLS if shell not in missing]


def make_stub_bin(folder):
    """A folder of stub commands that append their argv to $STUB_LOG (each word as BYTES:word, one call a line);
    `touch` also creates the file, so that an injected `touch PWNED` leaves a trace."""
    for name in STUBS:
        body = ('LC_ALL=C\nfor word in "${0##*/}" "$@"; do printf \'%s:%s\' "${#word}" "$word"; done >> "$STUB_LOG"\n'
                'printf \'\\n\' >> "$STUB_LOG"\n')
        if name == "touch":
            body += 'for file in "$@"; do : >> "$file"; done\n'
        path = folder / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
    return folder


def logged_calls(data):
    """Parse the stub log (bytes) back into argv lists."""
    calls, position = [], 0
    while position < len(data):
        call = []
        while data[position:position + 1] != b"\n":
            colon = data.index(b":", position)
            size = int(data[position:colon])
            call.append(data[colon + 1:colon + 1 + size].decode("utf-8", "surrogateescape"))
            position = colon + 1 + size
        calls.append(call)
        position += 1
    return calls


def execute(script, shell, stub_bin, folder):
    """Run SCRIPT with SHELL in FOLDER, PATH = the stubs only; return the logged calls."""
    path = folder / ("fix." + shell)
    path.write_text(script)
    log = folder / "calls.log"
    log.write_bytes(b"")
    argv = {"bash": ["bash", "--noprofile", "--norc"], "zsh": ["zsh", "-f"], "fish": ["fish", "--no-config"]}[shell]
    env = {"PATH": str(stub_bin), "STUB_LOG": str(log), "HOME": str(folder), "LC_ALL": "C.UTF-8",
           "XDG_CONFIG_HOME": str(folder), "XDG_DATA_HOME": str(folder)}
    subprocess.run([shutil.which(argv[0])] + argv[1:] + [str(path)], cwd=str(folder), env=env, timeout=60,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return logged_calls(log.read_bytes())
