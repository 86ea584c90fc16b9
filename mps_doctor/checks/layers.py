"""The layers of the verdict shared by MPS and CPU runs (the CUDA-only ones live in cuda.py)."""

import math
import re
from typing import Optional

from mps_doctor.checks.context import (
    GET_STARTED,
    PYTORCH_MPS_DOCS,
    Context,
    at_least,
    describe_failure,
    known_actions,
    needs_interpreter,
    new_environment,
    timeout_outcome,
    unpinned_gap,
)
from mps_doctor.checks.model import (
    PROBE_DEVICE,
    CheckAgain,
    InstallPackages,
    InstallTorch,
    Outcome,
    Remedy,
    Task,
    doctor,
    export,
    failed,
    note,
    passed,
    run,
    skipped,
    unset,
    warned,
)
from mps_doctor.checks.pasted import (
    MACOS_VERSION,
    chip_decides_x86_64,
    installed_torch_version,
    macos_seen_by_python,
    mps_unavailable_versions_unknown,
    torch_before_mps,
    torch_seen_at_work,
)
from mps_doctor.checks.registry import DEVICE_RUN, check
from mps_doctor.devices import hosted_runner
from mps_doctor.words import shorten

ROSETTA_DOCS = "https://developer.apple.com/documentation/apple-silicon/about-the-rosetta-translation-environment"
HOSTED_RUNNER_DOCS = "https://docs.github.com/en/actions/using-github-hosted-runners/about-github-hosted-runners"
# Tolerances of the parity layers. Tensor ops: float32 against a float64 reference, relative to the
# reference's largest magnitude; the known MPS bugs (pytorch#109457, #118115) are off by O(1).
OP_RTOL = 1e-3
# Training step: gradients relative to the reference gradient's largest magnitude; 1e-2 leaves room for
# TF32 convolutions, which CUDA enables by default (reference/performance.md section 3).
GRAD_RTOL = 1e-2
LOSS_RTOL = 1e-3


# MPSAllocator.mm's message when an allocation would pass the high watermark (torch 1.13.1 to 2.15.0 binaries).
OUT_OF_MEMORY = "MPS backend out of memory"
# MPSFallback.mm's error for an operator without an MPS kernel when the fallback is off (1.12.1 to 2.15.0 binaries).
MISSING_OPERATOR = "not currently implemented for the MPS device"
WATERMARK_RATIOS = ("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO")


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


@check("hardware.apple-silicon", "Mac has Apple Silicon",
       layer=20, devices=("mps",), facts=("host.hw_arm64",), evidence=("x86_64-python-on-mac",))
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
               "(PyTorch 2.2 release notes)." % ctx.releases.last_intel_torch,
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


def unknown_release(ctx: Context, version: str, consequence: str) -> Outcome:
    """A warning that torch VERSION is newer than every row of the release table, so runtime facts decide."""
    newest = ctx.releases.releases[-1].torch
    return warned(
        "torch %s has no row in mps-doctor's release table (newest: %s): %s" % (version, newest, consequence),
        Remedy("This mps-doctor's data/torch_releases.json ends at torch %s." % newest,
               "A newer mps-doctor knows the new release's Python range, macOS minimum and companions: update it from "
               "where your team installs it (a newer checkout, wheel file or pinned git URL; never a name on a package "
               "index, where no mps-doctor is published); `--version` shows the table's date and newest row. Until "
               "then the installed torch's own answers are used.", (doctor("--version"),), key="upgrade-doctor"),
        rule="no row for torch %s in torch_releases.json" % version,
    )


@check("python.version", "Python version is supported by torch",
       layer=50, devices=("mps", "cuda", "cpu"), facts=("interpreter.version",), facts_when=installed_torch_version,
       evidence=("no-wheel-for-python",))
def python_version(ctx: Context) -> Outcome:
    """the row's Python range, read from the wheel tags (regular CPython builds on both macOS arm64 and Linux x86_64)
    and `Requires-Python` of torch_releases.json; with no torch installed, a Python that only older releases support
    warns and the fix pins that release. A torch newer than the table warns and names the missing row (below).
    """
    broken = needs_interpreter(ctx)
    if broken:
        return broken
    py = ctx.python_version
    label = "%d.%d" % py[:2]
    version = ctx.torch_version()
    if version:
        release, exact = ctx.releases.row_for(version)
        if release is None:
            return passed("Python %s (torch %s is older than the release table)" % (label, version))
        if not exact:
            imports = "torch imports on Python %s" % label if ctx.torch_imported() else "later layers decide"
            return unknown_release(ctx, version, "its Python range is unknown; %s" % imports)
        if release.supports_python(py):
            return passed("Python %s is within torch %s's range %s" % (label, release.torch, release.python),
                          rule=release.label)
        remedy = python_remedy(ctx, "torch %s supports Python %s." % (release.torch, release.python))
        if ctx.torch_imported():
            return warned("Python %s is outside torch %s's supported range %s" % (label, release.torch, release.python),
                          remedy, "torch imported anyway: an experimental or unofficial build", rule=release.label)
        return failed("Python %s is not supported by torch %s (%s)" % (label, release.torch, release.python),
                      remedy, rule=release.label)
    current = ctx.newest_for_platform()
    if current.supports_python(py):
        return passed("Python %s is supported by torch %s (%s), %s" % (
            label, current.torch, current.python, ctx.newest_words()), rule=current.label)
    older = ctx.allowed_release()
    if older is not None and not ctx.intel_mac():
        return warned(
            "Python %s only gets torch up to %s; %s needs %s" % (label, older.torch, ctx.current_words(current), current.python),
            python_remedy(ctx, "%s supports Python %s." % (capitalized(ctx.current_words(current)), current.python)),
            rule=older.label,
        )
    return failed(
        "Python %s is not supported by %s (%s): pip will find no wheel" % (label, ctx.current_words(current), current.python),
        python_remedy(ctx, "%s supports Python %s." % (capitalized(ctx.current_words(current)), current.python)),
        rule=current.label,
    )


def capitalized(text: str) -> str:
    """TEXT with its first letter upper-case (a phrase that starts a sentence)."""
    return text[:1].upper() + text[1:]


def python_remedy(ctx: Context, why: str) -> Remedy:
    """Create an environment with a supported Python beside the current one."""
    return Remedy(
        "%s is outside the supported range." % ctx.python_label(), why + " A new environment is created beside the old one.",
        (new_environment(ctx, arm64=ctx.is_mac and bool(ctx.host.hw_arm64)),),
        "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix", key="supported-python",
        title="Create an environment with Python %s beside the current one" % ctx.new_python(),
    )


# Import errors worth naming, first match wins: (pattern, diagnosis, remedy key).
IMPORT_ERROR_RULES = (
    (r"partially initialized module 'torch'|cannot import name .* from 'torch' \(unknown location\)",
     "a local file or folder named `torch` shadows the installed package", "shadowed"),
    (r"incompatible architecture|wrong architecture|mach-o file, but is an incompatible",
     "the torch binaries are for another CPU architecture than this Python", "reinstall"),
    (r"GLIBC_[\d.]+' not found", "this Linux's glibc is older than the torch build needs", "reinstall"),
    (r"Library not loaded|image not found|cannot open shared object file|DLL load failed",
     "a shared library of torch is missing or broken", "reinstall"),
    (r"No module named 'torch[.']", "a part of torch itself is missing", "reinstall"),
    (r"No module named ", "a dependency of torch is missing", "reinstall"),
)
# Modules of torch's pure-Python dependencies and the distributions that provide them: the Requires-Dist of the
# torch 2.13.0 wheel's METADATA (filelock, typing-extensions, setuptools, sympy, networkx, jinja2, fsspec), and
# the dependencies of those (sympy needs mpmath, jinja2 needs MarkupSafe).
DEPENDENCY_DISTRIBUTIONS = {
    "filelock": "filelock", "typing_extensions": "typing-extensions", "setuptools": "setuptools",
    "pkg_resources": "setuptools", "sympy": "sympy", "mpmath": "mpmath", "networkx": "networkx", "jinja2": "jinja2",
    "markupsafe": "MarkupSafe", "fsspec": "fsspec",
}


def missing_dependency(text: str) -> Optional[str]:
    """The distribution to install when TEXT says a dependency module of torch is missing, else None."""
    match = re.search(r"No module named '([A-Za-z0-9_.]+)'", text)
    if match is None:
        return None
    return DEPENDENCY_DISTRIBUTIONS.get(match.group(1).split(".")[0].lower())


def shadowed(ctx: Context, shadow) -> Outcome:
    """The fail for a local `torch` that a plain `import torch` finds before the installed package."""
    if shadow.where == "PYTHONPATH":
        summary = "`import torch` finds %s (from PYTHONPATH), not the installed torch" % shadow.path
        why = ("A folder on PYTHONPATH comes before site-packages, so every `import torch` runs this file instead of "
               "PyTorch. Rename or move it (for example to torch_local), or drop its folder from PYTHONPATH.")
    else:
        summary = "a local %s in the working directory shadows torch for `python -c` and scripts here" % shadow.path
        why = ("`python -c 'import torch'`, `python -m` and scripts in this folder import it instead of PyTorch (the "
               "working directory comes first on sys.path). Rename or move it, for example to torch_local.")
    return failed(summary, Remedy("%s is not the installed torch package." % shadow.path, why,
                                  (run("ls", "-ld", shadow.path),
                                   note("rename or move it (for example to torch_local), then check again")),
                                  GET_STARTED, key="torch-shadowed",
                                  title="Rename the local `torch` that hides the installed package"),
                  "shadowing: %s (%s)" % (shadow.path, shadow.where))


@check("torch.import", "torch imports",
       layer=60, devices=("mps", "cuda", "cpu"), facts=("torch.installed|torch.import_failed",),
       pasted=torch_seen_at_work)
def torch_import(ctx: Context) -> Outcome:
    """`import torch` in the child; first, a `torch/` package, `torch.py` or `torch.*.so` in the working directory or
    on PYTHONPATH with no torch distribution metadata beside it is a shadow: the check names its path (a PYTHONPATH
    one is not imported at all). The error text is classified (shadowing folder, wrong architecture, glibc, missing
    library); a missing dependency module of torch (the torch 2.13.0 wheel's Requires-Dist: filelock,
    typing-extensions, setuptools, sympy, networkx, jinja2, fsspec, and mpmath, MarkupSafe under them) gets `pip
    install` of that distribution, not a torch reinstall; a crash or hang is attributed to the import stage.
    """
    broken = needs_interpreter(ctx)
    if broken:
        return broken
    failure = ctx.target.failure
    if failure is not None and failure.stage == "torch" and failure.kind == "timeout":
        return timeout_outcome(ctx)
    if failure is not None and failure.stage == "torch":
        what = describe_failure(failure)
        hint = (" An Illegal instruction usually means a torch build for a newer CPU, or an x86_64 build under Rosetta."
                if failure.signal == "SIGILL" else "")
        return failed(
            "`import torch` %s" % what,
            Remedy("Importing torch in %s %s." % (ctx.target.python, what),
                   "A crash or hang in the import leaves torch unusable." + hint,
                   (reinstall_torch(ctx),), GET_STARTED, key="reinstall-torch",
                   title="Reinstall torch and torchvision, pinned together"),
            *(("stderr: " + failure.stderr_tail,) if failure.stderr_tail else ()),
        )
    info = ctx.torch
    if info is None:
        return failed("torch facts are missing", Remedy("The probe did not report torch.", "Nothing can be checked.",
                                                        (InstallTorch(),), key="install-torch",
                                                        title="Install torch and torchvision, pinned together"))
    if info.shadows:
        return shadowed(ctx, info.shadows[0])
    if not info.installed:
        return failed(
            "torch is not installed in %s" % ctx.target.python,
            Remedy("torch is not installed for %s (%s)." % (ctx.python_label(), ctx.target.python),
                   "There is no torch in this environment. torch and torchvision from different releases fail at "
                   "import, so both are installed, pinned to one release.", (InstallTorch(),), GET_STARTED,
                   key="install-torch", title="Install torch and torchvision, pinned together"),
        )
    if info.import_error is not None:
        error = info.import_error
        text = "%s: %s" % (error.type, error.message)
        diagnosis, key = "torch is installed but does not import", "reinstall"
        for pattern, meaning, rule_key in IMPORT_ERROR_RULES:
            if re.search(pattern, text):
                diagnosis, key = meaning, rule_key
                break
        dependency = missing_dependency(text)
        title = "Reinstall torch and torchvision, pinned together"
        if key == "shadowed":
            actions = (run("ls", "-d", "torch", "torch.py"),
                       note("rename or move it (for example to torch_local), then check again"))
            why = "Python imports the local `torch` from the current directory instead of the installed one."
            title = "Rename the local `torch` that hides the installed package"
        elif dependency:
            diagnosis, key = "torch's dependency %s is not installed" % dependency, "missing-dependency"
            actions = (InstallPackages((dependency,)),)
            why = "torch needs %s at import; installing it leaves torch as it is." % dependency
            title = "Install %s, which torch needs" % dependency
        else:
            actions = (reinstall_torch(ctx),)
            why = "Reinstalling torch and torchvision as a matching pair restores a consistent install."
        return failed(
            "`import torch` fails: %s" % diagnosis,
            Remedy(shorten(text.splitlines()[0], 300), why, actions, GET_STARTED, key="torch-" + key, title=title),
            text, error.traceback,
        )
    took = " (%.1f s)" % info.import_seconds if info.import_seconds is not None else ""
    return passed("torch %s imports%s" % (info.version, took))


def reinstall_torch(ctx: Context) -> InstallTorch:
    """Reinstall the installed torch release (or the one for this machine), with its torchvision."""
    release = ctx.release_to_reinstall()
    return InstallTorch(release.torch if release else None, force=True)


@check("torch.mps-built", "torch was built with MPS",
       layer=70, devices=("mps",), facts=("torch.mps_built",), pasted=torch_before_mps)
def torch_mps_built(ctx: Context) -> Outcome:
    """`torch.backends.mps.is_built()` (= `torch._C._has_mps`, a build flag)."""
    if ctx.torch.mps_built:
        return passed("torch.backends.mps.is_built() is True")
    version = ctx.torch.version or "?"
    release = ctx.release_to_install() or ctx.releases.current
    reason = "this torch was built without MPS"
    if "+" in version:
        reason += " (a %s build, not the macOS arm64 wheel from PyPI)" % version.split("+", 1)[1]
    return failed(
        reason,
        Remedy("torch %s reports torch.backends.mps.is_built() == False." % version,
               "The default PyPI wheel for macOS arm64 is the MPS build; x86_64 wheels and custom builds have no MPS.",
               (InstallTorch(release.torch, force=True),), GET_STARTED, key="reinstall-torch-mps",
               title="Reinstall torch from PyPI, whose macOS arm64 wheel is the MPS build"),
    )


def sandbox_marker(env) -> str:
    """The variable that marks a sandboxed process, as NAME=value, or ''.

    CODEX_SANDBOX=seatbelt is set for commands that Codex runs under Seatbelt (openai/codex AGENTS.md);
    APP_SANDBOX_CONTAINER_ID is set by macOS for App Sandbox processes.
    """
    for name in ("CODEX_SANDBOX", "APP_SANDBOX_CONTAINER_ID"):
        if env.get(name):
            return "%s=%s" % (name, env[name])
    return ""


def vm_remedy(problem: str, why: str) -> Remedy:
    """Check on the CPU: the remedy for MPS inside a virtual machine or a hosted runner."""
    return Remedy(problem, why, (CheckAgain(device="cpu"),), HOSTED_RUNNER_DOCS, key="vm-mps",
                  title="Use the CPU on this machine (gate MPS on a bare-metal Mac)")


@check("torch.mps-available", "MPS is available",
       layer=80, devices=("mps",), facts=("torch.mps_available",), pasted=mps_unavailable_versions_unknown)
def torch_mps_available(ctx: Context) -> Outcome:
    """`torch.backends.mps.is_available()`; VM from `kern.hv_vmm_present`, hosted runner from `GITHUB_ACTIONS` +
    `RUNNER_ENVIRONMENT`/`ImageOS` (GitHub runner docs; pytorch#125197); sandboxes from `CODEX_SANDBOX`
    (openai/codex AGENTS.md) or `APP_SANDBOX_CONTAINER_ID` (openai/codex#10199); for a row without a macOS minimum,
    the macOS upgrade or the newest known pin.
    """
    hosted = hosted_runner(ctx.host)
    if ctx.host.vmm_present is True or hosted:
        return mps_in_vm(ctx.torch.mps_available, hosted)
    if ctx.torch.mps_available:
        return passed("torch.backends.mps.is_available() is True" +
                      (" (%s)" % ctx.torch.mps_name if ctx.torch.mps_name else ""))
    return mps_unavailable(ctx)


def mps_in_vm(available: bool, hosted: bool) -> Outcome:
    """Inside a virtual machine MPS is unsupported: a warning when torch says it is AVAILABLE, else a failure."""
    vm = "inside a virtual machine%s" % (" (GitHub-hosted runner)" if hosted else "")
    if available:
        return warned(
            "MPS reports available, but %s" % vm,
            vm_remedy("kern.hv_vmm_present = 1.",
                      "GitHub documents MPS as unsupported under Apple's Virtualization Framework, and hosted "
                      "runners have reported MPS available and then failed or returned wrong numbers (pytorch#125197)."),
        )
    return failed(
        "MPS is not available %s" % vm,
        vm_remedy("MPS is built but unavailable, and kern.hv_vmm_present = 1.",
                  "Apple's Virtualization Framework exposes no MPS device (GitHub runner docs: 'Metal Performance "
                  "Shaders (MPS) are not supported'). Use the CPU in CI, or a bare-metal Mac."),
    )


def mps_unavailable(ctx: Context) -> Outcome:
    """Why MPS is built but unavailable on bare metal: a sandbox, a release without a known minimum, or no GPU access."""
    sandbox = sandbox_marker(ctx.host.env)
    if sandbox:
        return failed(
            "MPS is not available inside a sandbox (%s)" % sandbox,
            Remedy("This process runs in a sandbox (%s)." % sandbox,
                   "Sandboxed processes can be denied the Metal device, so MPS reports built but unavailable "
                   "(openai/codex#10199). Run the training, and this check, outside the sandbox.",
                   (note("start a terminal that is not sandboxed and run the check from there"), CheckAgain()),
                   PYTORCH_MPS_DOCS, key="sandbox", title="Run outside the sandbox"),
        )
    version, macos = ctx.torch_version(), ctx.macos()
    release, exact = ctx.releases.row_for(version) if version else (None, False)
    if release is not None and exact and release.macos_min_mps is None and macos:
        fallback = ctx.allowed_release()
        return failed(
            "MPS is not available, and torch %s's macOS minimum for MPS is unknown" % version,
            Remedy("The release table has no MPS minimum for torch %s; this Mac runs %s." % (version, macos),
                   "Either upgrade macOS, or pin torch %s, the newest release known to run MPS on macOS %s." % (
                       fallback.torch if fallback else "?", macos),
                   upgrade_macos_or_pin(ctx, fallback, macos), PYTORCH_MPS_DOCS, key="upgrade-macos-or-pin",
                   title="Upgrade macOS (the lasting fix)"),
            rule=release.label,
        )
    return failed(
        "MPS is built but not available, on a new enough macOS",
        Remedy("torch.backends.mps.is_available() is False although the OS and build are right.",
               "Usual causes: a sandbox (an agent or app sandbox), an SSH or headless session without GPU access, or no "
               "Metal device (pytorch#177819, openai/codex#10199). Run outside the sandbox and check Metal support.",
               (run("system_profiler", "SPDisplaysDataType"), note("look for 'Metal Support' in the output above"),
                run(ctx.target.python, "-c", 'import torch; torch.ones(1, device="mps")')),
               PYTORCH_MPS_DOCS, key="mps-unavailable", title="Run outside the sandbox or VM, with access to the GPU"),
    )


def within(comparison, rtol: float) -> bool:
    """Whether a Comparison is finite and its error is within RTOL of its reference's magnitude."""
    if not comparison.finite or comparison.max_abs_err is None:
        return False
    return comparison.max_abs_err <= rtol * max(comparison.max_abs_ref, 1e-12)


def stage_failure(ctx: Context, stage: str):
    """An Outcome for a child that died during STAGE, else None."""
    failure = ctx.target.failure
    if failure is None or failure.stage != stage:
        return None
    what = describe_failure(failure)
    if failure.kind == "timeout":
        return timeout_outcome(ctx)
    return failed(
        "the %s run on %s %s" % (stage, ctx.device, what),
        Remedy("The %s stage on %s %s." % (stage, ctx.device, what),
               "A device that crashes or hangs on small tensor work is not usable for training.",
               (CheckAgain(device="cpu"),), ctx.device_docs(), key="device-crash"),
        *(("stderr: " + failure.stderr_tail,) if failure.stderr_tail else ()),
    )


def stage_missing(ctx: Context, stage: str, facts) -> Optional[Outcome]:
    """The outcome when STAGE's facts cannot be judged: the child died in it, never reported it, or (in a replayed
    report) ran it on another device than this verdict is about; else None."""
    crashed = stage_failure(ctx, stage)
    if crashed:
        return crashed
    from mps_doctor.devices import probed_devices

    probed = ",".join(probed_devices(ctx.target)) or ctx.device
    if ctx.device not in probed.split(","):
        return warned(
            "not probed on %s: the saved facts are for %s" % (ctx.device, probed),
            Remedy("This report's device work ran on %s, not %s." % (probed, ctx.device),
                   "Whether %s computes correctly is unknown until it is probed." % ctx.device,
                   (CheckAgain(device=ctx.device),), key=PROBE_DEVICE))
    if facts is None:
        return unprobed(ctx, "no %s facts were recorded for %s" % (stage, ctx.device))
    return None


def explained(remedy: Remedy, message: str) -> Remedy:
    """REMEDY with the cause, fix and source of MESSAGE when the known-error catalogue (data/known_errors.json) has it."""
    from mps_doctor.known_errors import explain

    known = explain(message)
    if known is None:
        return remedy
    actions = remedy.actions + tuple(a for a in known_actions(known.commands) if a not in remedy.actions)
    return Remedy(remedy.problem, "%s (known error %s) %s" % (known.cause, known.id, known.fix), actions,
                  known.link or remedy.link, remedy.key, remedy.title)


def unprobed(ctx: Context, summary: str) -> Outcome:
    """A failure for facts that a (replayed) report lacks: readiness cannot be shown without them."""
    return failed(summary, Remedy("The facts this layer judges are missing, so %s is not shown to work." % ctx.device,
                                  "Only a probe of the device on that machine can tell.",
                                  (CheckAgain(device=ctx.device),), key=PROBE_DEVICE))


@check("device.parity", "A tensor operation on the device matches the CPU",
       layer=90, devices=("mps", "cuda", "cpu"), facts=(DEVICE_RUN,), evidence=("wrong-results",))
def device_parity(ctx: Context) -> Outcome:
    """matmul at batch 16 (pytorch#109457) and `addcdiv_` on a transposed tensor (pytorch#118115) against float64 on
    the CPU; tolerance 1e-3 of the reference's largest magnitude; an operator without an MPS kernel fails with the
    `PYTORCH_ENABLE_MPS_FALLBACK=1` remedy, and one that fell back to the CPU warns (torch warns once per process,
    so it is caught where first met); MPSAllocator's "MPS backend out of memory" is named, with the
    `PYTORCH_MPS_HIGH_WATERMARK_RATIO` that set the limit.
    """
    parity = ctx.target.parity
    missing = stage_missing(ctx, "parity", parity)
    if missing:
        return missing
    if parity.error is not None:
        text = "%s: %s" % (parity.error.type, parity.error.message)
        if OUT_OF_MEMORY in text:
            return out_of_memory(ctx, "small tensor work", text)
        if MISSING_OPERATOR in text:
            return failed(
                "tensor work on %s raised %s: an operator has no MPS kernel in this torch" % (ctx.device, parity.error.type),
                Remedy(shorten(text.splitlines()[0], 300), "With PYTORCH_ENABLE_MPS_FALLBACK=1 torch runs such operators on the "
                       "CPU (slower, and this check then warns); a newer torch may have the kernel.",
                       (export("PYTORCH_ENABLE_MPS_FALLBACK", "1"),), PYTORCH_MPS_DOCS, key="mps-missing-operator",
                       title="Let operators missing on MPS run on the CPU"),
                text,
            )
        return failed(
            "tensor work on %s raised %s" % (ctx.device, parity.error.type),
            explained(Remedy(shorten(text.splitlines()[0], 300), "A device that cannot run a small matmul cannot train.",
                             (CheckAgain(device="cpu"),), ctx.device_docs(), key="device-error"), text),
            text,
        )
    details = tuple("%s: max |err| %.3g vs max |ref| %.3g (tolerance %.0e relative)" %
                    (op.name, op.max_abs_err if op.max_abs_err is not None else float("nan"), op.max_abs_ref, OP_RTOL)
                    for op in parity.ops)
    wrong = [op.name for op in parity.ops if not within(op, OP_RTOL)]
    if not parity.ops:
        return unprobed(ctx, "the parity probe reported no operations")
    if wrong:
        return failed(
            "%s gives wrong results on %s: %s" % ("an operation" if len(wrong) == 1 else "operations", ctx.device, ", ".join(wrong)),
            Remedy("Results on %s differ from a float64 CPU reference beyond the tolerance." % ctx.device,
                   "Silent correctness bugs of this kind shipped in torch releases (pytorch#109457, #118115) and in "
                   "virtualized GPUs (actions/runner-images#14380). " + upgrade_advice(ctx),
                   upgrade_torch(ctx), ctx.device_docs(), key="device-wrong-results",
                   title="Upgrade torch and torchvision to the newest pair for this machine"),
            *details,
        )
    summary = "%d operations on %s match a float64 CPU reference" % (len(parity.ops), ctx.device)
    if parity.fallback_warnings:
        return warned(summary + ", but ops fell back to the CPU",
                      fallback_remedy(ctx.host.env.get("PYTORCH_ENABLE_MPS_FALLBACK"), parity.fallback_warnings), *details)
    return passed(summary, *details)


def upgrade_advice(ctx: Context) -> str:
    """What to upgrade after wrong results on the device: macOS carries MPS, the NVIDIA driver carries CUDA."""
    carrier = {"mps": " and macOS", "cuda": " and the NVIDIA driver"}.get(ctx.device)
    return "Upgrade torch%s; until then train on the CPU." % carrier if carrier else "Upgrade torch."


def upgrade_torch(ctx: Context) -> tuple:
    """The newest torch pair for this machine; inside a virtual machine, and the CPU until a bare-metal Mac checks."""
    # MPS results inside a VM are not trustworthy (actions/runner-images#14380).
    return (InstallTorch(force=True),) + ((CheckAgain(device="cpu"),) if ctx.host.vmm_present else ())


def out_of_memory(ctx: Context, work: str, text: str, *details: str) -> Outcome:
    """A failed outcome for MPSAllocator's out-of-memory error during WORK, naming a watermark ratio that set the limit."""
    env = ctx.host.env
    ratios = [name for name in WATERMARK_RATIOS if env.get(name) not in (None, "")]
    if WATERMARK_RATIOS[0] in ratios:
        setting = "PYTORCH_MPS_HIGH_WATERMARK_RATIO=%s" % env[WATERMARK_RATIOS[0]]
        return failed(
            "%s ran out of memory on %s: the limit %s is too low" % (work, ctx.device, setting),
            Remedy("%s caps MPS allocations at that fraction of the GPU's recommended working set." % setting,
                   "Without it torch allows 1.7 times the recommended working set (MPSAllocator.h); a limit this low "
                   "fails the first few MiB.", tuple(unset(name) for name in ratios) + (
                       note("also remove them from your shell profile if they are set there"),), PYTORCH_MPS_DOCS,
                   key="mps-memory-limit", title="Lift the MPS memory limit back to torch's default"),
            text, *details)
    return failed(
        "%s ran out of memory on %s" % (work, ctx.device),
        Remedy(shorten(text.splitlines()[0], 300), "Other processes hold most of the GPU's memory, or the machine is under "
               "heavy memory pressure; close them and check again.", (CheckAgain(device=ctx.device),),
               PYTORCH_MPS_DOCS, key="mps-out-of-memory"),
        text, *details)


def fallback_remedy(flag: Optional[str], fallback_warnings) -> Remedy:
    """Ops that PYTORCH_ENABLE_MPS_FALLBACK=FLAG moved to the CPU, named by torch's first warning."""
    return Remedy("PYTORCH_ENABLE_MPS_FALLBACK=%s moved ops to the CPU: %s" % (flag, shorten(fallback_warnings[0], 200)),
                  "Fallback ops run on the CPU, silently slower; newer torch releases bring more MPS operators.",
                  (InstallTorch(),), PYTORCH_MPS_DOCS, key="mps-fallback",
                  title="Upgrade torch for more MPS operators")


@check("device.smoke", "A training step of the MNIST network works on the device",
       layer=100, devices=("mps", "cuda", "cpu"), facts=(DEVICE_RUN,))
def device_smoke(ctx: Context) -> Outcome:
    """The pytorch/examples MNIST Net on shipped MNIST digits: one step (dropout off, same weights and batch, TF32 off
    on CUDA) against the CPU (gradients within 1e-2, loss within 1e-3, relative), then 6 steps of batch 64 must
    lower the loss on held digits; fallback warnings warn; out of memory as in `device.parity`.
    """
    if ctx.options.quick:
        return skipped("skipped: --quick")
    smoke = ctx.target.smoke
    missing = stage_missing(ctx, "smoke", smoke)
    if missing:
        return missing
    on = "on the CPU (the target device is the CPU)" if smoke.device == "cpu" else "on %s" % smoke.device
    if smoke.error is not None:
        return smoke_error(ctx, smoke.error, on)
    details = smoke_details(smoke)
    mismatched = [g.name for g in smoke.grad_parity if not within(g, GRAD_RTOL)]
    loss_ok = smoke.loss_parity is not None and within(smoke.loss_parity, LOSS_RTOL)
    if not loss_ok or mismatched or not smoke.grad_parity:
        what = "loss" if not loss_ok else "gradients of " + ", ".join(mismatched)
        return failed(
            "one training step %s disagrees with the %s reference: %s" % (on, smoke.reference, what),
            Remedy("The same step (same weights, same batch, dropout off) gave different numbers %s." % on,
                   "Wrong gradients train a wrong model without any error message (pytorch#118115, "
                   "actions/runner-images#14380).",
                   upgrade_torch(ctx), ctx.device_docs(), key="smoke-mismatch",
                   title="Upgrade torch and torchvision to the newest pair for this machine"),
            *details,
        )
    before, after = smoke.loss_before, smoke.loss_after
    if before is None or after is None or not (math.isfinite(before) and math.isfinite(after)) or after >= before:
        return failed(
            "the loss did not fall %s (%s -> %s)" % (on, fmt(before), fmt(after)),
            Remedy("Training %d steps left the loss at %s from %s." % (smoke.steps, fmt(after), fmt(before)),
                   "On real MNIST digits a few Adadelta steps always lower the loss; this device does not train.",
                   (CheckAgain(device="cpu"),), ctx.device_docs(), key="smoke-no-learning"),
            *details,
        )
    summary = "trained %d steps %s: loss %.3f -> %.3f, %.1f ms/step warm" % (
        smoke.steps, on, before, after, smoke.warm_step_ms or float("nan"))
    if smoke.fallback_warnings:
        return warned(summary + ", but ops fell back to the CPU", fallback_remedy(smoke.fallback_env, smoke.fallback_warnings),
                      *details)
    return passed(summary, *details)


def smoke_error(ctx: Context, error, on: str) -> Outcome:
    """The failure for an exception raised by the training step ON a device."""
    text = "%s: %s" % (error.type, error.message)
    if OUT_OF_MEMORY in text:
        return out_of_memory(ctx, "training the MNIST network", text, error.traceback)
    return failed(
        "training %s raised %s" % (on, error.type),
        explained(Remedy(shorten(text.splitlines()[0], 300), "The MNIST network of pytorch/examples could not train here.",
                         (export("PYTORCH_ENABLE_MPS_FALLBACK", "1"),) if MISSING_OPERATOR in text else
                         (CheckAgain(device="cpu"),), ctx.device_docs(), key="smoke-error"), text),
        text, error.traceback,
    )


def smoke_details(smoke) -> list:
    """The -v lines of a training step: tolerances, the loss and gradient differences, the timing."""
    details = [
        "reference: %s; loss tolerance %.0e, gradient tolerance %.0e (relative to the reference's largest value)"
        % (smoke.reference, LOSS_RTOL, GRAD_RTOL),
    ]
    if smoke.loss_parity is not None:
        error = smoke.loss_parity.max_abs_err
        details.append("loss: reference %.6g, |diff| %.3g" % (
            smoke.loss_parity.max_abs_ref, error if error is not None else float("nan")))
    details += ["grad %s: max |diff| %.3g vs max |ref| %.3g" % (g.name, g.max_abs_err or float("nan"), g.max_abs_ref)
                for g in smoke.grad_parity]
    details.append("timing: cold first step %.1f ms, warm %.1f ms/step over %d steps of batch %d" % (
        smoke.cold_step_ms or float("nan"), smoke.warm_step_ms or float("nan"), smoke.steps, smoke.batch))
    return details


def fmt(value) -> str:
    """A loss for a message."""
    return "unknown" if value is None else "%.3f" % value
