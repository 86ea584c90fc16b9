"""test_cli: the tests of tests/unit/commands/test_commands.py that start processes (the integration tier)."""

import pytest

from tests.unit.commands.test_commands import HEAVY


@pytest.mark.parametrize("args", [("--help",), ("check", "--help"), ("fix", "--help"), ("policy", "show", "--help")])
def test_help_imports_none_of_the_library(args):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mps_doctor"] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 0 and "Usage:" in done.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    assert "mps_doctor.cli" in imported and "mps_doctor.commands.check" in imported
    assert not [m for m in imported if m.startswith(HEAVY)]
