"""No network: the doctor and its probe child open no socket connection and resolve no name (audit hooks, PEP 578)."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import doctor
from tests.hostile.attack import BASES

HOOK = '''
import os, sys

def _no_network(event, args):
    if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto", "urllib.Request"):
        with open(os.environ["NETWORK_LOG"], "a") as log:
            log.write("%s %r\\n" % (event, args[:2]))

sys.addaudithook(_no_network)
'''


@pytest.mark.slow
def test_check_and_fix_use_no_network(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(HOOK)
    log = tmp_path / "network.log"
    log.write_text("")
    report = tmp_path / "report.json"
    report.write_text(json.dumps(BASES["m3-torch-missing"]))
    env = {"PYTHONPATH": str(tmp_path), "NETWORK_LOG": str(log)}
    code, _, err = doctor("check", "--quick", "--device", "cpu", env=env)
    assert code in (0, 1), err
    code, _, err = doctor("fix", "--from", str(report), "--print-commands", env=env)
    assert code == 0, err
    assert log.read_text() == ""
    # The hook sees a lookup when there is one: a guard against a test that cannot fail.
    subprocess.run([sys.executable, "-c", "import socket\ntry: socket.getaddrinfo('localhost', 80)\nexcept OSError: pass"],
                   env=dict(os.environ, **env), check=True)
    assert "socket.getaddrinfo" in log.read_text()
