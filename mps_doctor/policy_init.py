"""A commented starting policy that describes a machine's current state (`mps-doctor policy init`)."""

from mps_doctor.checks.model import Status
from mps_doctor.render.safe import one_line
from mps_doctor.report import Report
from mps_doctor.versions import is_number, load_releases, minor_of


def render_policy(report: Report) -> str:
    """TOML for [tool.mps-doctor], each key explained, values taken from REPORT's facts."""
    facts = report.facts
    torch = facts.target.torch
    interp = facts.target.interpreter
    torch_version = torch.version if torch and torch.version else (torch.packages.get("torch") if torch else None)
    vision = torch.packages.get("torchvision") if torch else None
    lines = [
        "# mps-doctor team policy, written by `mps-doctor policy init` from this machine's current state.",
        "# Paste it into the project's pyproject.toml and edit; every key is optional (docs/policy.md).",
        "[tool.mps-doctor]",
        "# Devices that count as ready for this project; any one of them satisfies the policy.",
        'device = ["%s"]' % report.options.device,
        "# PEP 440 specifiers for the versions the team standardizes on.",
    ]
    if torch_version and minor_of(torch_version):
        lines.append('torch = "==%d.%d.*"' % minor_of(torch_version))
    else:
        current = load_releases().current
        lines.append(one_line('# torch = "==%s.*"    # %s; the newest release is %s' % (
            current.torch, torch_not_read(report), current.torch)))
    if vision and minor_of(vision):
        lines.append('torchvision = "==%d.%d.*"' % minor_of(vision))
    else:
        lines.append('# torchvision = "==0.28.*"')
    if interp is not None and interp.version:
        major, minor = interp.version[0], interp.version[1]
        lines.append('python = ">=%d.%d,<%d.%d"' % (major, minor, major, minor + 1))
    # Only a number goes between TOML quotes: a fact with a quote or a newline in it would write other keys.
    if facts.host.system == "Darwin" and facts.host.macos_version and is_number(facts.host.macos_version.split(".")[0]):
        parts = facts.host.macos_version.split(".")
        lines.append(one_line("# The oldest macOS the team supports (this Mac runs %s)." % facts.host.macos_version))
        lines.append('min-macos = "%s.0"' % parts[0])
    lines += [
        "# true: warnings fail the check too, like --strict.",
        "strict = false",
        "# Checks to skip, each with the reason the report will show, e.g.:",
        '# skip = [{ id = "host.memory", reason = "training runs on the cluster" }]',
    ]
    warned = [r for r in report.results if r.status == Status.WARN]
    if warned:
        lines.append("# Warnings on this machine now; accept one only with a real reason:")
        lines.append("# accept = [")
        for result in warned:
            lines.append(one_line('#   { id = "%s", reason = "..." },  # %s' % (result.id, result.summary)))
        lines.append("# ]")
    else:
        lines.append('# accept = [{ id = "python.numpy", reason = "..." }]')
    return "\n".join(lines) + "\n"


def torch_not_read(report: Report) -> str:
    """Why REPORT has no torch version, as `check` classifies it (its root cause): not installed, a failed import, a
    crash, or a probe that ran out of --timeout."""
    root = report.result(report.verdict.root_cause) if report.verdict.root_cause else None
    if root is None:
        return "torch is not installed here"
    if root.status == Status.TIMEOUT:
        return "no torch version here: %s; run again with a longer --timeout" % root.summary
    return "no torch version here: %s" % root.summary
