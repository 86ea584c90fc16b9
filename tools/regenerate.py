"""Rewrite everything derived from the checks, the facts and the recorded machines, then show what changed.

Run from a checkout after adding or changing a check, a fact or a recorded machine (docs/architecture.md, "Adding a
check"): `python -m tools.regenerate`. It writes tests/machines/*/machine.json, docs/checks.md's table,
docs/report-format.md's table of pasted facts, and the golden files (fix plans, check reports, the README's examples);
review the result with `git diff`.
"""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN_TESTS = ("tests/unit/remedies/test_plan.py", "tests/unit/render/test_golden_reports.py",
                "tests/unit/test_readme_examples.py")
FACTS_TABLE_HEAD = "| fact | value | in the JSON report | read by |"


def replace_block(path: str, start: str, end: str, block: str) -> None:
    """Replace the text of PATH from the line starting START through END (inclusive) with BLOCK."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    first = text.index(start)
    last = text.index(end, first) + len(end)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text[:first] + block + text[last:])


def regenerate_docs() -> None:
    """docs/checks.md's table from the registry, docs/report-format.md's fact table from the fact catalogue."""
    sys.path.insert(0, ROOT)
    from mps_doctor import fact_catalogue
    from mps_doctor.render.checks_doc import BEGIN, END, checks_table

    replace_block(os.path.join(ROOT, "docs", "checks.md"), BEGIN, END, checks_table().rstrip("\n"))
    replace_block(os.path.join(ROOT, "docs", "report-format.md"), FACTS_TABLE_HEAD, "\n\n",
                  fact_catalogue.markdown_table() + "\n")


def main() -> int:
    """Machines, docs, goldens; the exit status of the golden run."""
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "machines", "_build.py")], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    regenerate_docs()
    env = dict(os.environ, MPS_DOCTOR_UPDATE_GOLDENS="1")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *GOLDEN_TESTS], cwd=ROOT,
                          env=env)
    subprocess.run(["git", "status", "--short", "--", "tests/machines", "tests/golden", "docs", "README.md"], cwd=ROOT)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
