"""test_host_probe: the tests of tests/unit/probe/test_host.py that start processes (the integration tier)."""

from mps_doctor.probe.runner import run_command


def test_run_command_turns_a_missing_program_and_a_timeout_into_results():
    missing = run_command(["definitely-not-a-program-here"])
    assert missing.returncode is None and missing.error
    slow = run_command(["sleep", "5"], timeout=0.2)
    assert slow.timed_out and slow.returncode is None


def test_run_command_uses_the_c_locale():
    assert run_command(["sh", "-c", "echo $LC_ALL"]).stdout.strip() == "C"
