"""A commented starting policy that describes a machine's current state (`mps-doctor policy init`)."""

from mps_doctor.checking.context import Context
from mps_doctor.checking.model import Status
from mps_doctor.render.safe import escaped_line
from mps_doctor.report import Report
from mps_doctor.versions import is_number, load_releases, minor_of


def release_lines(report: Report) -> list:
    """The torch and torchvision keys: the installed torch's row of the release table and the torchvision it pairs
    with (as a comment when torchvision is not installed, so that the policy passes on this machine); for a torch the
    table has no row, its minor, and the installed torchvision as a comment; without torch, the release the table
    gives this machine, as comments."""
    facts = report.facts
    torch = facts.target.torch
    ctx = Context(facts, report.options, load_releases())
    version = ctx.torch_version()
    release, exact = ctx.releases.row_for(version) if version and minor_of(version) else (None, False)
    if release is not None and exact:
        lines = ['torch = "==%s"' % release.torch_pin]
        if torch is not None and torch.packages.get("torchvision"):
            lines.append('torchvision = "==%s"' % release.torchvision_pin)
        else:
            # An active pin would fail this very machine (torchvision not installed): the pair stays a suggestion.
            lines.append('# torchvision = "==%s"    # not installed here; the release table pairs it with torch %s, '
                         'for when the team installs torchvision' % (release.torchvision_pin, release.torch))
        if ctx.python_version and not release.supports_python(ctx.python_version):
            lines.append("# torch %s supports Python %s, not this Python %d.%d: `mps-doctor fix` says what to do" % (
                (release.torch, release.python) + tuple(ctx.python_version[:2])))
        return lines
    if version and minor_of(version):
        vision = torch.packages.get("torchvision") if torch else None
        lines = ['torch = "==%d.%d.*"' % minor_of(version)]
        if vision and minor_of(vision):
            lines.append('# torchvision = "==%d.%d.*"    # installed here; the release table has no row for torch %s'
                         % (minor_of(vision) + (version,)))
        return lines
    release = ctx.release_to_install() or ctx.releases.current
    return ['# torch = "==%s"    # %s; the newest release for this machine is %s' % (
        release.torch_pin, torch_not_read(report), release.torch), '# torchvision = "==%s"    # the torchvision paired with torch %s' % (
        release.torchvision_pin, release.torch)]


def render_policy(report: Report) -> str:
    """TOML for [tool.mps-doctor], each key explained, values taken from REPORT's facts and the release table."""
    facts = report.facts
    interp = facts.target.interpreter
    lines = [
        "# mps-doctor team policy, written by `mps-doctor policy init` from this machine's current state.",
        "# Paste it into the project's pyproject.toml and edit; every key is optional (docs/policy.md).",
        "[tool.mps-doctor]",
        "# Devices that count as ready for this project; any one of them satisfies the policy.",
        'device = ["%s"]' % report.options.device,
        "# PEP 440 specifiers for the versions the team standardizes on.",
    ]
    lines += [escaped_line(line) for line in release_lines(report)]
    if interp is not None and interp.version:
        major, minor = interp.version[0], interp.version[1]
        lines.append('python = ">=%d.%d,<%d.%d"' % (major, minor, major, minor + 1))
    # Only a number goes between TOML quotes: a fact with a quote or a newline in it would write other keys.
    if facts.host.system == "Darwin" and facts.host.macos_version and is_number(facts.host.macos_version.split(".")[0]):
        parts = facts.host.macos_version.split(".")
        lines.append(escaped_line("# The oldest macOS the team supports (this Mac runs %s)." % facts.host.macos_version))
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
            lines.append(escaped_line('#   { id = "%s", reason = "..." },  # %s' % (result.id, result.summary)))
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
