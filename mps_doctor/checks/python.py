"""The Python layer and advisory: an interpreter that describes itself, in the release's Python range, with numpy."""

from typing import Optional

from mps_doctor.checking.context import Context, timeout_outcome, unknown_release
from mps_doctor.checking.model import InstallPackages, InstallTorch, Outcome, Remedy, failed, note, passed, run, skipped, warned
from mps_doctor.checking.pasted import installed_torch_version
from mps_doctor.checking.registry import check
from mps_doctor.facts import describe_failure
from mps_doctor.release_choice import new_environment
from mps_doctor.versions import PLATFORM_WORDS


def needs_interpreter(ctx: Context) -> Optional[Outcome]:
    """A fail when the target interpreter never described itself (crash, hang, too old), else None."""
    interp, failure = ctx.interp, ctx.target.failure
    if interp is not None and interp.too_old:
        return python_too_old(ctx, ".".join(map(str, interp.version)))
    if interp is not None:
        return None
    if failure is not None and failure.stage == "interpreter" and failure.kind == "timeout":
        return timeout_outcome(ctx)
    if failure is not None and failure.stage == "interpreter":
        what = describe_failure(failure)
        return failed(
            "the target Python %s before describing itself" % what,
            Remedy("%s %s." % (ctx.target.python, what), "Without a working interpreter nothing else can be checked.",
                   (run(ctx.target.python, "-c", "import sys; print(sys.version)"),), key="python-broken"),
            *(("stderr: " + failure.stderr_tail,) if failure.stderr_tail else ()),
        )
    return failed(
        "the target Python did not report itself",
        Remedy("No interpreter facts were recorded.", "Every later layer depends on them.",
               (run(ctx.target.python, "-c", "import sys; print(sys.version)"),), key="python-broken"),
    )


# The oldest Python the probe child runs on: child/__main__.py answers `too_old` below it.
PROBE_PYTHON = "3.7"


def python_too_old(ctx: Context, version: str) -> Outcome:
    """The failure for a Python too old for the probe child, worded for the device asked for and this platform: MPS is
    macOS's, and on Linux the torch in question is a CUDA or CPU build."""
    first, current = ctx.releases.releases[0], ctx.releases.current
    floor = ctx.releases.oldest_python()
    newest = "the newest, torch %s, needs Python %s" % (current.torch, current.python)
    if ctx.device == "mps":
        scope = "every PyTorch with MPS"
        why = "PyTorch with MPS (torch %s and later) needs Python %s at the very least; %s." % (first.torch, floor, newest)
    else:
        builds = {"cuda": "CUDA builds", "cpu": "CPU builds"}.get(ctx.device, "builds")
        on = "Linux" if ctx.host.system == "Linux" else "macOS" if ctx.is_mac else ctx.host.system
        scope = "PyTorch's %s for %s since %s" % (builds, on, first.torch)
        why = "Every torch release since %s needs Python %s or newer, its %s for %s included; %s." % (
            first.torch, floor, builds, on, newest)
    return failed(
        "Python %s is too old for mps-doctor's probe and for %s" % (version, scope),
        Remedy("The target Python is %s; mps-doctor's probe needs Python %s or newer." % (version, PROBE_PYTHON), why,
               (new_environment(ctx, arm64=ctx.is_mac and bool(ctx.host.hw_arm64)),),
               "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix",
               key="python-too-old", title="Create an environment with Python %s beside the current one" % ctx.new_python()),
    )


@check("python.version", "Python version is supported by torch",
       layer=50, devices=("mps", "cuda", "cpu"), facts=("interpreter.version|interpreter.pointer_bits",),
       facts_when=installed_torch_version,
       evidence=("no-wheel-for-python", "python-blamed"))
def python_version(ctx: Context) -> Outcome:
    """the row's Python range, read from the wheel tags (regular CPython builds on both macOS arm64 and Linux x86_64)
    and `Requires-Python` of torch_releases.json; with no torch installed, a Python that only older releases support
    warns and the fix pins that release. A torch newer than the table warns and names the missing row (below).
    """
    broken = needs_interpreter(ctx)
    if broken:
        return broken
    py = ctx.python_version
    # No Mac runs a 32-bit Python (macOS dropped 32-bit apps in 10.15; Apple Silicon never ran them).
    if ctx.interp is not None and ctx.interp.pointer_bits == 32 and not ctx.torch_imported() and not ctx.is_mac:
        return thirty_two_bit(ctx)
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


@check("python.free-threaded", "A free-threaded Python has torch wheels",
       layer=55, devices=("mps", "cuda", "cpu"), facts=("interpreter.free_threaded",))
def python_free_threaded(ctx: Context) -> Outcome:
    """a free-threaded CPython (3.13t, 3.14t: `Py_GIL_DISABLED`, PEP 703) installs only torch releases that publish
    its `cp3XYt` wheels for this platform, read from the wheel tags on PyPI (the rows' `free_threaded`); pip skips
    the others silently, or finds no torch at all. Without torch, a free-threaded Python that only older releases
    serve warns (the plan pins the newest that has its wheels); one that no allowed release serves fails.
    """
    interp = ctx.interp
    if interp is None or not interp.free_threaded:
        return passed(regular_build_words(ctx))
    label = "%d.%dt" % ctx.python_version[:2]
    platform = PLATFORM_WORDS.get(ctx.free_threaded_platform())
    if ctx.torch_imported():
        return passed("torch %s imports in free-threaded Python %s" % (ctx.torch_version(), label))
    if platform is None:
        return skipped("Python %s runs on a platform without torch wheels of any kind" % label)
    newest, served = ctx.newest_for_platform(), ctx.allowed_release()
    if served is None:
        return failed(
            "no torch release %shas wheels for free-threaded Python %s on %s" % (
                "that the team's policy allows " if ctx.limits_torch() else "", label, platform),
            free_threaded_remedy(ctx, label, platform), rule=newest.label)
    if served.torch != newest.torch:
        return warned("free-threaded Python %s gets torch up to %s: torch %s has no %s wheels for %s" % (
            label, served.torch, newest.torch, wheel_tag(label), platform),
            Remedy("pip passes over the releases without %s wheels: it installs torch %s here, or finds no torch when a "
                   "newer one is pinned." % (wheel_tag(label), served.torch),
                   "Install torch %s, the newest with %s wheels for %s, or use a regular build of Python %s for torch %s."
                   % (served.torch, wheel_tag(label), platform, ctx.new_python(), newest.torch),
                   (InstallTorch(),), FREE_THREADING_DOCS, key="install-torch"),
            rule=served.label)
    return passed("torch %s has %s wheels for %s" % (served.torch, wheel_tag(label), platform), rule=served.label)


FREE_THREADING_DOCS = "https://docs.python.org/3/howto/free-threading-python.html"


def regular_build_words(ctx: Context) -> str:
    """Why the target Python is not free-threaded: too old for such builds (3.13 brought them, PEP 703), a regular
    build, or a probe that did not record it."""
    if ctx.python_version and ctx.python_version[:2] < (3, 13):
        return "Python %d.%d has no free-threaded build" % ctx.python_version[:2]
    if ctx.interp is not None and ctx.interp.free_threaded is False:
        return "a regular (GIL) build"
    return "not recorded as a free-threaded build"


def wheel_tag(label: str) -> str:
    """The wheel tag of free-threaded Python LABEL ('3.14t' -> 'cp314t')."""
    return "cp" + label.replace(".", "")


def free_threaded_remedy(ctx: Context, label: str, platform: str) -> Remedy:
    """An environment with a regular (GIL) build of a supported Python, beside the free-threaded one."""
    return Remedy(
        "%s is a free-threaded build (%s), and torch publishes %s wheels for %s only in some releases." % (
            ctx.python_label(), label, wheel_tag(label), platform),
        "A regular build of Python %s gets every release that supports it; the free-threaded environment is kept."
        % ctx.new_python(),
        (new_environment(ctx, arm64=ctx.is_mac and bool(ctx.host.hw_arm64)),),
        FREE_THREADING_DOCS, key="regular-python",
        title="Create an environment with a regular Python %s beside the current one" % ctx.new_python(),
    )


def capitalized(text: str) -> str:
    """TEXT with its first letter upper-case (a phrase that starts a sentence)."""
    return text[:1].upper() + text[1:]


def thirty_two_bit(ctx: Context) -> Outcome:
    """A 32-bit Python gets no torch at all: each release's PyPI files are for 64-bit platforms only (macOS arm64,
    Linux x86_64 and aarch64, Windows amd64: the wheel lists in the release table's sources), and pip then finds
    nothing, or torch's 0.1.2 placeholder (pytorch#27815, #149823)."""
    return failed(
        "%s is a 32-bit build: torch publishes 64-bit wheels only" % ctx.python_label(),
        Remedy("%s is a 32-bit build." % ctx.python_label(),
               "torch's wheels are for 64-bit Pythons (Windows amd64, Linux x86_64 and aarch64, macOS arm64); a "
               "32-bit Python, or any Python on a 32-bit Windows, gets none. Install a 64-bit Python (on Windows, "
               "python.org's 'Windows installer (64-bit)', on a 64-bit Windows) and create the environment with it.",
               (note("install a 64-bit Python (https://www.python.org/downloads/) and create the environment with it"),
                run("python", "-c", "import platform; print(platform.architecture()[0])")),
               "https://github.com/pytorch/pytorch/issues/149823", key="python-64-bit",
               title="Use a 64-bit Python"),
    )


def python_remedy(ctx: Context, why: str) -> Remedy:
    """Create an environment with a supported Python beside the current one."""
    return Remedy(
        "%s is outside the supported range." % ctx.python_label(), why + " A new environment is created beside the old one.",
        (new_environment(ctx, arm64=ctx.is_mac and bool(ctx.host.hw_arm64)),),
        "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix", key="supported-python",
        title="Create an environment with Python %s beside the current one" % ctx.new_python(),
    )


@check("python.numpy", "numpy is installed", advisory=30)
def python_numpy(ctx: Context) -> Outcome:
    """numpy's distribution metadata (torch warns 'Failed to initialize NumPy' without it)."""
    info = ctx.torch
    if info is None or not info.installed:
        return skipped("torch is not installed")
    if info.packages.get("numpy"):
        return passed("numpy %s" % info.packages["numpy"])
    return warned(
        "numpy is not installed",
        Remedy("torch warns 'Failed to initialize NumPy' at import.",
               "Tensor.numpy(), torch.from_numpy() and most data loading code need numpy.",
               (InstallPackages(("numpy",)),), key="install-numpy", title="Install numpy"),
    )
