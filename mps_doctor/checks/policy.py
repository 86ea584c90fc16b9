"""The policy layer: what the team's [tool.mps-doctor] table (or --require-device) demands of this machine."""

from mps_doctor.checking.context import Context
from mps_doctor.checking.model import CheckAgain, InstallTorch, Outcome, Remedy, doctor, failed, passed, run, skipped
from mps_doctor.checking.registry import check
from mps_doctor.release_choice import new_environment
from mps_doctor.versions import at_least, satisfies

POLICY_DOCS = "docs/policy.md"


def pin_remedy(ctx: Context, what: str, why: str, key: str) -> Remedy:
    """Install the installed torch's release with its torchvision when the team's specifiers allow it, else the newest
    release they allow on this machine (the release every other install of the plan picks too); a new environment
    when only another Python gets one."""
    installed = ctx.release_to_reinstall()
    release = installed if installed in ctx.installable() and ctx.allows(installed) else ctx.allowed_release()
    if release is not None:
        audio = bool(ctx.torch and ctx.torch.packages.get("torchaudio"))
        return Remedy(what, why, (InstallTorch(release.torch, audio=audio),), POLICY_DOCS, key=key,
                      title="Install the torch release the team pins")
    python = ctx.new_environment_python()
    if python is not None:
        return Remedy(what, "%s No release it allows supports %s; a new environment with Python %s gets one." % (
            why, ctx.python_label(), python), (new_environment(ctx, "team", arm64=ctx.is_mac and bool(ctx.host.hw_arm64)),),
            POLICY_DOCS, key=key, title="Create an environment with Python %s for the torch release the team pins" % python)
    return Remedy(what, why + " No release in the data table meets it on this machine.", (doctor("policy", "show"),),
                  POLICY_DOCS, key=key)


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
    meets it (and `torchvision`) and runs here, the release every install of the plan uses
    """
    spec = ctx.options.policy.torch
    version = ctx.torch_version()
    if satisfies(version, spec):
        return passed("torch %s meets %s" % (version, spec))
    return failed(
        "torch %s does not meet the team's %s" % (version or "(not installed)", spec),
        pin_remedy(ctx, "The team pins torch %s." % spec, "Everyone trains on the same torch release.", "policy-torch"),
    )


@check("policy.torchvision", "torchvision meets the team's version requirement",
       policy=lambda options: bool(options.policy.torchvision))
def policy_torchvision(ctx: Context) -> Outcome:
    """the installed torchvision against `torchvision`; the fix pins the installed torch's pair when the policy allows
    that torch, else the newest allowed pair
    """
    spec = ctx.options.policy.torchvision
    version = ctx.torch.packages.get("torchvision") if ctx.torch else None
    if satisfies(version, spec):
        return passed("torchvision %s meets %s" % (version, spec))
    return failed(
        "torchvision %s does not meet the team's %s" % (version or "(not installed)", spec),
        pin_remedy(ctx, "The team pins torchvision %s." % spec, "torchvision must also pair with torch.",
                   "policy-torchvision"),
    )


@check("policy.python", "Python meets the team's version requirement",
       policy=lambda options: bool(options.policy.python))
def policy_python(ctx: Context) -> Outcome:
    """the target interpreter against `python`; the fix creates an environment with the release table's Python for new
    environments, or the one nearest to it that `python` allows and that gets a torch the policy allows
    """
    spec = ctx.options.policy.python
    py = ctx.python_version
    version = ".".join(map(str, py)) if py else None
    if satisfies(version, spec):
        return passed("Python %s meets %s" % (version, spec))
    target = ctx.new_environment_python()
    return failed(
        "Python %s does not meet the team's %s" % (version or "(unknown)", spec),
        Remedy("The team requires Python %s." % spec, "A new environment is created beside the old one." if target else
               "No Python in the release table meets it with a torch release the policy allows on this machine.",
               (new_environment(ctx, "team", arm64=ctx.is_mac and bool(ctx.host.hw_arm64)),) if target else
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
