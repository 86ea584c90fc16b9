"""The torch install: it imports, it was built for the device, and torchvision and torchaudio match it."""

from typing import Optional

from mps_doctor.checking.context import GET_STARTED, Context, timeout_outcome
from mps_doctor.checking.intents import actions_of
from mps_doctor.checking.model import (
    InstallPackages,
    InstallTorch,
    Outcome,
    Remedy,
    failed,
    note,
    passed,
    run,
    skipped,
    warned,
)
from mps_doctor.checking.pasted import TORCH_VERSION, torch_before_mps, torch_seen_at_work
from mps_doctor.checking.registry import check
from mps_doctor.checks.cuda import cuda_reinstall, cuda_reinstall_title
from mps_doctor.checks.python import needs_interpreter
from mps_doctor.facts import describe_failure
from mps_doctor.known_errors import IMPORT_FAILURE, OWN_FIX, RENAME_LOCAL_TORCH, captured, first_of_kind
from mps_doctor.versions import label_cuda, minor_of
from mps_doctor.words import shorten

# Modules of torch's pure-Python dependencies and the distributions that provide them: the Requires-Dist of the
# torch 2.13.0 wheel's METADATA (filelock, typing-extensions, setuptools, sympy, networkx, jinja2, fsspec), and
# the dependencies of those (sympy needs mpmath, jinja2 needs MarkupSafe).
DEPENDENCY_DISTRIBUTIONS = {
    "filelock": "filelock", "typing_extensions": "typing-extensions", "setuptools": "setuptools",
    "pkg_resources": "setuptools", "sympy": "sympy", "mpmath": "mpmath", "networkx": "networkx", "jinja2": "jinja2",
    "markupsafe": "MarkupSafe", "fsspec": "fsspec",
}


def missing_dependency(text: str) -> Optional[str]:
    """The distribution to install when TEXT says a dependency module of torch is missing (the module that the
    catalogue's import failures capture), else None."""
    module = captured(IMPORT_FAILURE, "module", text)
    return DEPENDENCY_DISTRIBUTIONS.get(module.split(".")[0].lower()) if module else None


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
       evidence=("torch-dll-not-loaded", "cpu-lacks-armv8-1", "torch-import-crashed"), pasted=torch_seen_at_work)
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
        # The catalogue's import failures, first match wins (data/known_errors.json, kind import-failure).
        known = first_of_kind(IMPORT_FAILURE, text)
        diagnosis = known.cause if known else "torch is installed but does not import"
        key = "shadowed" if known and known.remedy == RENAME_LOCAL_TORCH else "reinstall"
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
        elif known is not None and known.remedy == OWN_FIX:
            # The catalogue's own fix where reinstalling torch cannot help (a glibc older than the wheel needs).
            actions = actions_of(known.actions, ctx.facts.host.system, ctx.target.python, tuple(ctx.python_version or ()))
            why, key, title = known.fix, "known", "Fix what stops `import torch`"
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


@check("torch.cuda-built", "torch was built with CUDA",
       layer=75, devices=("cuda",), facts=("torch.cuda_version",))
def torch_cuda_built(ctx: Context) -> Outcome:
    """`torch.version.cuda` (None on a CPU build; the `+cpu`/`+cuXYZ` label alone is not trusted)."""
    if ctx.torch.cuda_version:
        return passed("CUDA %s build (torch %s)" % (ctx.torch.cuda_version, ctx.torch.version))
    label = ctx.torch.version or ""
    if "+rocm" in label:
        # A ROCm build has no torch.version.cuda: its torch.cuda runs on AMD GPUs through HIP (pytorch.org, ROCm).
        return skipped("torch %s is a ROCm build (AMD GPUs); the CUDA layers read NVIDIA's" % label)
    kind = "a CPU-only build" if label.endswith("+cpu") or "+" not in label else "a build without CUDA"
    return failed(
        " ".join(("torch", label, "is", kind)).replace("  ", " "),
        Remedy("torch.version.cuda is None, so torch.cuda.is_available() is always False.",
               "Install the same release from the CUDA index that matches the driver ('nvidia-smi' shows the newest "
               "CUDA it supports), torch and torchvision pinned together.",
               cuda_reinstall(ctx), GET_STARTED, key="install-cuda-torch", title=cuda_reinstall_title(ctx)),
    )


COMPANIONS = ("torchvision", "torchaudio")


@check("torch.companions", "torchvision and torchaudio match torch", advisory=20,
       facts=(TORCH_VERSION, "packages.torchvision|packages.torchaudio"))
def torch_companions(ctx: Context) -> Outcome:
    """torchvision's `Requires-Dist` on torch, read from the wheels: minor + 15 for 2.0-2.14, and 0.29 (0.29.1/0.29.2,
    `torch>=2.14.0`) for 2.15, where 0.29.0 (`torch==2.14.0`) pairs with 2.14.0 only; torchaudio by minor, 2.11+
    stable ABI serves later torch.
    """
    info = ctx.torch
    if info is None or not (info.installed or info.packages.get("torch")):
        return skipped("torch is not installed")
    torch_version = ctx.torch_version()
    release, exact = ctx.releases.row_for(torch_version) if torch_version else (None, False)
    if torch_version and ctx.releases.older_than_rows(torch_version):
        return companions_before_rows(ctx, torch_version)
    if release is None or not exact:
        return skipped("torch %s is not in the release table" % torch_version)
    mismatched = []
    vision = info.packages.get("torchvision")
    refused = ctx.releases.companion_refuses("torchvision", vision, torch_version) if vision else None
    if vision and minor_of(vision) != minor_of(release.torchvision):
        mismatched.append("torchvision %s (torch %s needs %s.x)" % (vision, release.torch, release.torchvision))
    elif refused:
        mismatched.append("torchvision %s (it requires torch%s)" % (vision, refused))
    audio = info.packages.get("torchaudio")
    if audio and not audio_matches(audio, release, ctx.releases.torchaudio_stable_abi_from):
        mismatched.append("torchaudio %s (torch %s needs %s.x)" % (audio, release.torch, release.torchaudio))
    if mismatched:
        return warned(
            "; ".join(mismatched),
            Remedy("Companion packages from another release than torch %s." % torch_version,
                   "An unpinned `pip install torchvision` can pull in another torch, and mismatched builds fail at import "
                   "or at the first operator ('operator torchvision::nms does not exist').",
                   (InstallTorch(release.torch, audio=bool(audio), cuda=label_cuda(torch_version)),), GET_STARTED,
                   key="pin-companions",
                   title="Reinstall %s pinned to torch's release" % " and ".join(
                       name for name in ("torchvision", "torchaudio") if info.packages.get(name) or name == "torchvision")),
            rule=release.label,
        )
    present = ", ".join("%s %s" % (n, info.packages[n]) for n in ("torchvision", "torchaudio") if info.packages.get(n))
    if not present:
        return passed("no torchvision or torchaudio installed", rule=release.label)
    return passed("%s %s torch %s" % (present, "match" if ", " in present else "matches", torch_version), rule=release.label)


def companions_before_rows(ctx: Context, torch_version: str) -> Outcome:
    """torch.companions for a torch older than the table's rows: each companion's minor against the minors whose
    Requires-Dist names torch's (torchvision 0.11.x for torch 1.10), and its own Requires-Dist where it has one; an
    unpinned torchvision 0.1-0.2 serves the torch releases before the first exact pin."""
    table = ctx.releases
    installed = {name: ctx.torch.packages[name] for name in COMPANIONS if ctx.torch.packages.get(name)}
    mismatched, pins, judged = [], [], False
    for name, version in installed.items():
        minors = table.companion_minors_before_rows(name, torch_version)
        refused = table.companion_refuses(name, version, torch_version)
        judged = judged or bool(minors) or refused is not None
        if table.serves_unpinned(name, version, torch_version):
            continue
        if minors and "%d.%d" % (minor_of(version) or (0, 0)) not in minors:
            mismatched.append("%s %s (torch %s needs %s)" % (name, version, torch_version, " or ".join(m + ".x" for m in minors)))
        elif refused:
            mismatched.append("%s %s (it requires torch%s)" % (name, version, refused))
        else:
            continue
        pins.append((name, table.companion_for(name, torch_version)))
    if not mismatched:
        if installed and not judged:
            return skipped("no torchvision or torchaudio release names torch %s" % torch_version)
        present = ", ".join("%s %s" % pair for pair in installed.items())
        return passed("%s %s torch %s" % (present, "match" if len(installed) > 1 else "matches", torch_version) if present
                      else "no torchvision or torchaudio installed")
    pinned = all(pin for _, pin in pins)
    action = InstallPackages(tuple("%s==%s" % pair for pair in pins), cuda=label_cuda(torch_version)) if pinned \
        else InstallTorch(audio="torchaudio" in installed)
    return warned(
        "; ".join(mismatched),
        Remedy("Companion packages from another release than torch %s." % torch_version,
               "Each torchvision and torchaudio release is built against one torch release (its Requires-Dist pins it); "
               "another one fails at import or at the first operator. A CUDA build's companions come from the same "
               "index as torch.",
               (action,), GET_STARTED, key="pin-companions",
               title="Install the companions built for torch %s" % torch_version if pinned
               else "Install a current torch with its companions pinned to it"),
    )


def audio_matches(audio: str, release, stable_from: str) -> bool:
    """torchaudio pairs by minor, except that torchaudio 2.11+ serves torch 2.11 and later (stable ABI)."""
    ours = minor_of(audio)
    if ours is None:
        return False
    if ours == minor_of(release.torchaudio):
        return True
    return ours >= minor_of(stable_from) and minor_of(release.torch) >= ours
