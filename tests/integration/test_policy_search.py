"""test_policy_search: the tests of tests/unit/test_policy_search.py that start processes (the integration tier)."""

import json
import os
import subprocess
import sys

from tests.unit.test_policy_search import monorepo


def test_policy_show_from_a_monorepo_package_names_the_team_file(tmp_path):
    sub = monorepo(tmp_path / "repo")
    env = dict(os.environ, NO_COLOR="1")
    done = subprocess.run([sys.executable, "-m", "mps_doctor", "policy", "show", "--format", "json"], cwd=str(sub),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["devices"] == ["cpu"] and shown["source"] == str(tmp_path / "repo" / "pyproject.toml")
