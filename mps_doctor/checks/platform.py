"""The platform layers: the operating system, the Mac's chip, a native Python, and macOS against torch's MPS minimum."""

from typing import Optional

from mps_doctor.checking.context import GET_STARTED, PYTORCH_MPS_DOCS, Context, unknown_release
from mps_doctor.checking.model import (
    CheckAgain,
    InstallTorch,
    Outcome,
    Remedy,
    Task,
    failed,
    note,
    passed,
    run,
    skipped,
    warned,
)
from mps_doctor.checking.pasted import MACOS_VERSION, chip_decides_x86_64, cuda_outside_linux, installed_torch_version, macos_seen_by_python
from mps_doctor.checking.registry import check
from mps_doctor.checks.python import needs_interpreter
from mps_doctor.release_choice import new_environment
from mps_doctor.versions import Release, at_least

ROSETTA_DOCS = "https://developer.apple.com/documentation/apple-silicon/about-the-rosetta-translation-environment"


@check("os.macos", "Operating system is macOS",
       layer=10, devices=("mps",), facts=("host.system",), evidence=("container-on-mac",), pasted=macos_seen_by_python)
def os_macos(ctx: Context) -> Outcome:
    """MPS is Metal: macOS only (docs/notes/mps.rst)."""
    if ctx.is_mac:
        build = " (%s)" % ctx.host.macos_build if ctx.host.macos_build else ""
        return passed("macOS %s%s" % (ctx.host.macos_version or "?", build))
    has_gpu = bool(ctx.host.nvidia_smi and ctx.host.nvidia_smi.found)
    alternative = "cuda" if has_gpu else "cpu"
    return failed(
        "this is %s: the MPS backend exists only on macOS" % ctx.host.system,
        Remedy("--device mps was asked for on %s." % ctx.host.system,
               "MPS is Apple's Metal backend; on this machine torch can use %s." %
               ("the NVIDIA GPU (cuda)" if has_gpu else "the CPU"),
               (note("MPS needs macOS on Apple Silicon; CUDA needs Linux with an NVIDIA GPU"), CheckAgain(device=alternative)),
               PYTORCH_MPS_DOCS, key="use-another-device", title="Diagnose the device this machine has (%s)" % alternative),
    )


@check("os.linux", "Operating system supports CUDA",
       layer=15, devices=("cuda",), facts=("host.system",), evidence=("cuda-build-off-linux", "cuda-asked-on-mac"),
       pasted=cuda_outside_linux)
def os_linux(ctx: Context) -> Outcome:
    """CUDA is diagnosed on Linux (macOS wheels have no CUDA)."""
    if ctx.host.system == "Linux":
        distro = ctx.host.linux_distro or {}
        return passed("Linux %s" % (distro.get("name") or ctx.host.release or ""))
    alternative = "mps" if ctx.is_mac else "cpu"
    return failed(
        "CUDA is not available on %s" % ("macOS" if ctx.is_mac else ctx.host.system),
        Remedy("--device cuda was asked for on %s." % ctx.host.system,
               "PyTorch's macOS wheels have no CUDA ('CUDA is not available on MacOS, please use default package'); "
               "mps-doctor diagnoses CUDA on Linux.",
               (note("MPS needs macOS on Apple Silicon; CUDA needs Linux with an NVIDIA GPU"), CheckAgain(device=alternative)),
               GET_STARTED, key="use-another-device", title="Diagnose the device this machine has (%s)" % alternative),
    )


@check("hardware.apple-silicon", "Mac has Apple Silicon",
       layer=20, devices=("mps",), facts=("host.hw_arm64",))
def hardware_apple_silicon(ctx: Context) -> Outcome:
    """`sysctl -n hw.optional.arm64` (1 on Apple Silicon, also to an x86_64 process; missing on Intel). Intel-Mac
    wheels stopped at 2.2.2 (PyTorch 2.2 release notes, pytorch#114602; `last_intel_mac_torch` of the release table).
    """
    if ctx.host.hw_arm64 is True:
        return passed(ctx.host.cpu_brand or "Apple Silicon (hw.optional.arm64 = 1)")
    if ctx.host.hw_arm64 is None:
        return warned(
            "could not read hw.optional.arm64; later layers decide",
            Remedy("`sysctl -n hw.optional.arm64` gave no answer.", "Apple Silicon is needed for MPS.",
                   (run("sysctl", "-n", "hw.optional.arm64"),), key="read-sysctl"),
        )
    last = ctx.releases.row_for(ctx.releases.last_intel_torch)[0]
    py = ctx.python_version
    # The last Intel-Mac release's macOS x86_64 wheels cover its row's Python range (torch 2.2.2: cp38 to cp312).
    older_python = (new_environment(ctx, install_torch=False),) if py and not last.supports_python(py) else ()
    return failed(
        "Intel Mac (%s): PyTorch's MPS backend needs Apple Silicon" % (ctx.host.cpu_brand or "x86_64"),
        Remedy("This Mac has an Intel CPU.",
               "Current PyTorch wheels use MPS on Apple Silicon only, and Intel-Mac wheels stopped at torch %s "
               "(PyTorch %s release notes)." % (ctx.releases.last_intel_torch, last.torch),
               older_python + (InstallTorch(last.torch), CheckAgain(device="cpu")),
               "https://github.com/pytorch/pytorch/issues/114602", key="intel-mac",
               title="Install the last Intel-Mac torch for the CPU"),
    )


@check("python.rosetta", "Python runs natively (arm64), not under Rosetta",
       layer=30, devices=("mps", "cpu:Darwin"), facts=("interpreter.machine",), facts_when=chip_decides_x86_64,
       evidence=("x86_64-python-on-mac",))
def python_rosetta(ctx: Context) -> Outcome:
    """`platform.machine()` and `sysctl.proc_translated` of the target interpreter (Apple, "About the Rosetta
    Translation Environment"; Apple forum 659846).
    """
    if not ctx.is_mac:
        return skipped("not macOS")
    broken = needs_interpreter(ctx)
    if broken:
        return broken
    machine, translated = ctx.interp.machine, ctx.interp.proc_translated
    if machine == "arm64" and translated != 1:
        return passed("%s, not translated" % ctx.python_label())
    # sysctl.proc_translated is 1 for a Rosetta-translated process (Apple, "About the Rosetta Translation
    # Environment"); platform.machine() says x86_64 there even on Apple Silicon (Apple forum 659846).
    if translated == 1 or (machine == "x86_64" and ctx.host.hw_arm64):
        conda = ctx.interp.conda_subdir == "osx-64"
        summary = "Python runs under Rosetta (x86_64) on an arm64 Mac" + (" (Intel conda, osx-64)" if conda else "")
        remedy = rosetta_remedy(ctx, conda)
        if ctx.device == "cpu":
            return warned(summary, remedy, "torch still runs on the CPU here, but only up to torch %s" %
                          ctx.releases.last_intel_torch)
        return failed(summary, remedy, "platform.machine() = %s, sysctl.proc_translated = %s" % (machine, translated))
    if machine == "x86_64":
        return skipped("Intel Mac: Rosetta does not apply")
    return warned(
        "unexpected interpreter architecture %r" % machine,
        Remedy("platform.machine() is %r." % machine, "MPS needs a native arm64 Python.",
               (run(ctx.target.python, "-c", "import platform; print(platform.machine())"),), key="check-arch"),
    )


def rosetta_remedy(ctx: Context, conda: bool) -> Remedy:
    """A native arm64 environment beside the translated one, with torch in it."""
    if conda:
        problem = "This conda environment is osx-64 (Intel), so its Python runs under Rosetta."
    else:
        problem = "%s is an x86_64 program, translated by Rosetta." % ctx.target.python
    return Remedy(
        problem,
        "An x86_64 Python gets x86_64 torch wheels, which stop at %s and never use the Apple GPU. "
        "A new environment is created beside the old one; nothing is deleted." % ctx.releases.last_intel_torch,
        (new_environment(ctx, "arm64", arm64=True),), ROSETTA_DOCS, key="native-python-conda" if conda else "native-python",
    )


@check("macos.version", "macOS is new enough for this torch's MPS",
       layer=40, devices=("mps",), facts=(MACOS_VERSION,), facts_when=installed_torch_version)
def macos_version(ctx: Context) -> Outcome:
    """`sw_vers` with `SYSTEM_VERSION_COMPAT=0` against `macos_min_mps` of the installed torch's row, read from the
    wheels (docs/checks.md, "The release table"): 12.3 up to 2.4, 13.0 for 2.5-2.8, 14.0 from 2.9. When the wheel installs
    below that minimum (2.9-2.11 install on macOS 11+), the remedy says that torch runs on the CPU there with MPS
    unavailable; the pin it offers is the newest release whose MPS runs on this macOS, and it names what an unpinned
    `pip install torch` would get instead (2.11 on macOS 13). torch's own error message is not trusted (#139425,
    #177819; 2.15's says 15.0+ although nothing checks it).
    """
    macos = ctx.macos()
    unreadable = unreadable_macos(macos)
    if unreadable:
        return unreadable
    version = ctx.torch_version()
    release, exact = ctx.releases.row_for(version) if version else (ctx.newest_allowed(), True)
    whose = "torch %s" % version if version else "%s (not installed yet)" % ctx.current_words(release)
    if release is None:
        first = ctx.releases.first_mps
        return warned(
            "%s is older than the release table (torch %s introduced MPS)" % (whose, first),
            Remedy("torch %s predates MPS." % version, "MPS arrived in torch %s." % first, (InstallTorch(force=True),), GET_STARTED,
                   key="upgrade-torch", title="Upgrade torch and torchvision to the newest pair for this machine"),
        )
    if not exact:
        if ctx.torch is not None and ctx.torch.mps_available:
            return passed("macOS %s runs torch %s's MPS (no row for it in the release table: the runtime decides)" % (
                macos, version), rule="no row for torch %s in torch_releases.json" % version)
        return unknown_release(ctx, version, "its macOS minimum for MPS is unknown; torch.backends.mps.is_available() decides")
    if release.macos_min_mps is None:
        return unknown_mps_minimum(ctx, release, macos, whose)
    if at_least(macos, release.macos_min_mps):
        return passed("macOS %s >= %s, the MPS minimum for %s" % (macos, release.macos_min_mps, whose), rule=release.label)
    return too_old_for_mps(ctx, release, macos, whose)


def unreadable_macos(macos: Optional[str]) -> Optional[Outcome]:
    """A warning when the macOS version is unknown or the 10.16 compatibility answer, else None."""
    if macos is None:
        return warned(
            "could not read the macOS version (sw_vers); later layers decide",
            Remedy("`sw_vers` gave no answer.", "MPS needs a minimum macOS per torch release.",
                   (run("sw_vers", env=(("SYSTEM_VERSION_COMPAT", "0"),)),), key="read-sw-vers"),
        )
    if macos.startswith("10.16"):
        return warned(
            "macOS reports the compatibility version 10.16; the real version is unknown",
            Remedy("sw_vers answered 10.16.", "Since macOS 11 that number hides the real version.",
                   (run("sw_vers", "-productVersion", env=(("SYSTEM_VERSION_COMPAT", "0"),)),), key="read-sw-vers"),
        )
    return None


def unknown_mps_minimum(ctx: Context, release, macos: str, whose: str) -> Outcome:
    """A table row without an MPS minimum: the runtime's answer decides."""
    if ctx.torch is not None and ctx.torch.mps_available:
        return passed("macOS %s runs %s's MPS here (the table's minimum for it is unknown)" % (macos, whose),
                      rule=release.label)
    return warned(
        "macOS %s: the MPS minimum of %s is unknown; torch.backends.mps.is_available() decides" % (macos, whose),
        Remedy("The release table has no macOS minimum for torch %s's MPS." % release.torch,
               "Later layers read MPS availability from torch itself.", (run("softwareupdate", "--list"),),
               PYTORCH_MPS_DOCS, key="upgrade-macos", title="Upgrade macOS (the lasting fix)"),
        rule=release.label,
    )


def too_old_for_mps(ctx: Context, release, macos: str, whose: str) -> Outcome:
    """The failure for a macOS below RELEASE's MPS minimum: upgrade macOS, or pin the newest torch whose MPS runs."""
    fallback = ctx.allowed_release()
    installs = ""
    if release.macos_min_install and not at_least(release.macos_min_install, release.macos_min_mps):
        # The wheel's platform tag (macosx_11_0_arm64) lets it install, while libtorch_cpu's MPSDevice gate refuses a
        # device below macos_min_mps (read from the wheels by tools.refresh).
        installs = ("torch %s installs on macOS %s and later and runs on the CPU there, but its MPS backend checks for "
                    "macOS %s and reports unavailable below it. " % (release.torch, release.macos_min_install,
                                                                    release.macos_min_mps))
    pin = ""
    if fallback is not None:
        pin = " Either upgrade macOS, or pin torch %s, the newest whose MPS runs on macOS %s%s." % (
            fallback.torch, macos, unpinned_gap(ctx, fallback))
    return failed(
        "macOS %s is too old for %s's MPS (needs %s+)" % (macos, whose, release.macos_min_mps),
        Remedy(
            "torch %s enables MPS only on macOS %s or newer; this Mac runs %s." % (release.torch, release.macos_min_mps, macos),
            installs + "torch.backends.mps.is_available() stays False; torch's own error message often names the wrong "
            "minimum (pytorch#139425, #164943)." + (pin or " No torch release has MPS on this macOS: upgrade macOS."),
            upgrade_macos_or_pin(ctx, fallback, macos), PYTORCH_MPS_DOCS, key="upgrade-macos-or-pin",
            title="Upgrade macOS (the lasting fix)",
        ),
        rule=release.label,
    )


def upgrade_macos_or_pin(ctx: Context, fallback, macos: str) -> tuple:
    """Software Update, and the alternative of pinning FALLBACK, the newest torch whose MPS runs on MACOS."""
    if fallback is None:
        return (run("softwareupdate", "--list"),)
    return (run("softwareupdate", "--list"),
            Task("pin-torch", "Or keep this macOS and pin torch %s, the newest whose MPS runs on macOS %s" % (
                fallback.torch, macos), (InstallTorch(fallback.torch),),
                "Data row: %s%s." % (fallback.label, unpinned_gap(ctx, fallback))))


def unpinned_gap(ctx: Context, pinned: Release) -> str:
    """' (an unpinned `pip install torch` gets 2.11 here, ...)' when the newest torch that installs on this macOS is
    not PINNED, the newest whose MPS runs on it: wheel tags decide what installs, the MPS gate what runs."""
    macos = ctx.macos()
    unpinned = ctx.releases.newest_installable_on_macos(macos, ctx.python_version) if macos else None
    if unpinned is None or unpinned.torch == pinned.torch:
        return ""
    return " (an unpinned `pip install torch` gets %s here, which has no MPS on this macOS)" % unpinned.torch
