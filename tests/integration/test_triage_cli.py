"""test_triage_cli: the tests of tests/unit/triage/test_engine.py that start processes (the integration tier)."""

import os

from tests.unit.triage.test_engine import PASTED


def test_triage_never_imports_torch(tmp_path):
    import subprocess
    import sys

    code = ("import sys; from mps_doctor.triage.engine import triage; "
            "triage(open(sys.argv[1]).read()); print('torch' in sys.modules)")
    out = subprocess.check_output([sys.executable, "-c", code, os.path.join(PASTED, "pytorch-164943-macos13-torch210-stale-message.txt")],
                                  text=True)
    assert out.strip() == "False"
