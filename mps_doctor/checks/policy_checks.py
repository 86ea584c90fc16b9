"""The policy layer: what the team's [tool.mps-doctor] table (or --require-device) demands of this machine."""

from typing import Optional

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from mps_doctor.checks.context import Context, at_least
from mps_doctor.checks.model import CheckAgain, InstallTorch, NewEnvironment, Outcome, Remedy, doctor, failed, passed, run, skipped
from mps_doctor.checks.registry import check
from mps_doctor.versions import Release

POLICY_DOCS = "docs/policy.md"


def satisfies(version: Optional[str], specifier: str) -> bool:
    """Whether VERSION (its public part: 2.13.0+cpu counts as 2.13.0) is in SPECIFIER."""
    try:
        return bool(version) and Version(version).public in SpecifierSet(specifier)
    except InvalidVersion:
        return False


def release_for(ctx: Context, torch_spec: Optional[str] = None, vision_spec: Optional[str] = None) -> Optional[Release]:
    """The newest release that meets the team's specifiers and runs on this machine (Python, macOS for MPS)."""
    py = ctx.python_version
    macos = ctx.macos() if ctx.is_mac and ctx.device == "mps" else None
    for release in reversed(ctx.releases.releases):
        if release.confidence == "unknown":
            continue
        if torch_spec and not satisfies(release.torch + ".0", torch_spec) and not satisfies(
                release.torch_pin.replace(".*", ".0"), torch_spec):
            continue
        if vision_spec and not satisfies(release.torchvision + ".0", vision_spec):
            continue
        if py is not None and not release.supports_python(py):
            continue
        if macos and (release.macos_min_mps is None or not at_least(macos, release.macos_min_mps)):
            continue
        return release
    return None


def pin_remedy(ctx: Context, what: str, why: str, key: str, **specs) -> Remedy:
    release = release_for(ctx, **specs)
    actions = (InstallTorch(release.torch),) if release else (doctor("policy", "show"),)
    return Remedy(what, why + ("" if release else " No release in the data table meets it on this machine."),
                  actions, POLICY_DOCS, key=key, title="Install the torch release the team pins" if release else "")


@check("policy.device", "The device the team requires is the one checked",
       policy=lambda options: bool(options.demanded))
def policy_device(ctx: Context) -> Outcome:
    """the resolved device against `device` (and `--require-device`)"""
    demanded = ctx.options.demanded
    if ctx.device in demanded:
        return passed("requires %s; checked %s" % (" or ".join(demanded), ctx.device))
    return failed(
        "the team requires %s, but this run checked %s" % (" or ".join(demanded), ctx.device),
        Remedy("The policy (or --require-device) asks for %s." % " or ".join(demanded),
               "A machine is only ready for the team on a device it requires.",
               (CheckAgain(device=demanded[0]),), POLICY_DOCS, key="policy-device"),
    )


@check("policy.torch", "torch meets the team's version requirement",
       policy=lambda options: bool(options.policy.torch))
def policy_torch(ctx: Context) -> Outcome:
    """the installed torch's public version against `torch`; the fix pins the newest pair from the release table that
    meets it and runs here
    """
    spec = ctx.options.policy.torch
    version = ctx.torch_version()
    if satisfies(version, spec):
        return passed("torch %s meets %s" % (version, spec))
    return failed(
        "torch %s does not meet the team's %s" % (version or "(not installed)", spec),
        pin_remedy(ctx, "The team pins torch %s." % spec, "Everyone trains on the same torch release.",
                   "policy-torch", torch_spec=spec, vision_spec=ctx.options.policy.torchvision),
    )


@check("policy.torchvision", "torchvision meets the team's version requirement",
       policy=lambda options: bool(options.policy.torchvision))
def policy_torchvision(ctx: Context) -> Outcome:
    """the installed torchvision against `torchvision`"""
    spec = ctx.options.policy.torchvision
    version = ctx.torch.packages.get("torchvision") if ctx.torch else None
    if satisfies(version, spec):
        return passed("torchvision %s meets %s" % (version, spec))
    return failed(
        "torchvision %s does not meet the team's %s" % (version or "(not installed)", spec),
        pin_remedy(ctx, "The team pins torchvision %s." % spec, "torchvision must also pair with torch.",
                   "policy-torchvision", torch_spec=ctx.options.policy.torch, vision_spec=spec),
    )


@check("policy.python", "Python meets the team's version requirement",
       policy=lambda options: bool(options.policy.python))
def policy_python(ctx: Context) -> Outcome:
    """the target interpreter against `python`"""
    spec = ctx.options.policy.python
    py = ctx.python_version
    version = ".".join(map(str, py)) if py else None
    if satisfies(version, spec):
        return passed("Python %s meets %s" % (version, spec))
    candidates = [v for v in ("3.13", "3.12", "3.11", "3.10", "3.9") if satisfies(v + ".0", spec)]
    target = candidates[0] if candidates else None
    return failed(
        "Python %s does not meet the team's %s" % (version or "(unknown)", spec),
        Remedy("The team requires Python %s." % spec, "A new environment is created beside the old one.",
               (NewEnvironment("team", target, arm64=ctx.is_mac and bool(ctx.host.hw_arm64)),) if target else
               (doctor("policy", "show"),), POLICY_DOCS, key="policy-python"),
    )


@check("policy.macos", "macOS meets the team's minimum",
       policy=lambda options: bool(options.policy.min_macos))
def policy_macos(ctx: Context) -> Outcome:
    """`sw_vers` against `min-macos` (skipped off macOS)"""
    minimum = ctx.options.policy.min_macos
    if not ctx.is_mac:
        return skipped("not macOS")
    macos = ctx.macos()
    if macos and at_least(macos, minimum):
        return passed("macOS %s >= %s" % (macos, minimum))
    return failed(
        "macOS %s is older than the team's minimum %s" % (macos or "(unknown)", minimum),
        Remedy("The team requires macOS %s or newer." % minimum, "Software Update in System Settings installs it.",
               (run("softwareupdate", "--list"),), POLICY_DOCS, key="policy-macos"),
    )
