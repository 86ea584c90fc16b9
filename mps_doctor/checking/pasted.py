"""How checks read facts from pasted text (`triage`): the facts a case also needs, and the claims a paste cannot back.

Each function is named in its check's registration; triage/engine.py calls them with a view of the paste that answers
`has(fact)` ("a|b": either), `value(fact)` and `parser(fact)` (which parser read it; "derived" when inferred).
"""

from dataclasses import replace
from typing import Tuple

from mps_doctor.checking.model import Outcome, Status, run

# How a command for the pasted machine names its Python: the user's own, whatever its path.
PASTED_PYTHON = "python3"
MACOS_VERSION = "host.macos_version|interpreter.mac_ver"
TORCH_VERSION = "torch.version|packages.torch"


def chip_decides_x86_64(ctx) -> Tuple[str, ...]:
    """An x86_64 Python on macOS is an Intel Mac's or Rosetta's: the chip (hw.optional.arm64) tells which."""
    return ("host.hw_arm64",) if ctx.interp is not None and ctx.interp.machine == "x86_64" else ()


def installed_torch_version(ctx) -> Tuple[str, ...]:
    """The torch a paste is judged by. A paste of the machine alone (sw_vers, a platform string) is judged against the
    newest release, the one the user would install; a paste with torch's facts or a message from a program that ran
    has some torch, so its version decides, unless the paste says torch does not import. A 32-bit Python is judged
    without it: no torch release has a wheel for one."""
    if ctx.interp is not None and ctx.interp.pointer_bits == 32:
        return ()
    return (TORCH_VERSION + "|torch.import_failed",) if ctx.torch is not None else ()


def macos_seen_by_python(outcome: Outcome, ctx, paste) -> Outcome:
    """A pass that says where the macOS was read when sw_vers is not in the paste."""
    if outcome.status != Status.PASS or paste.has("host.macos_version"):
        return outcome
    seen = paste.value("interpreter.mac_ver")
    return replace(outcome, summary="macOS (%s)" % ("Python reports %s" % seen if seen else
                                                    "its version is not in the pasted text"))


def cuda_outside_linux(outcome: Outcome, ctx, paste) -> Outcome:
    """Windows has CUDA too (mps-doctor's CUDA layers are for Linux); a CUDA build asked for elsewhere is named."""
    if ctx.host.system == "Windows":
        return Outcome(Status.SKIP, "Windows: CUDA works there too; mps-doctor's own CUDA checks run on Linux")
    build = paste.value("request.cuda_build")
    if outcome.status != Status.FAIL:
        return outcome
    # A paste asks for CUDA in its own words or messages, never with `check --device cuda`.
    where = "macOS" if paste.value("host.system") == "Darwin" else "this platform"
    asked = "a CUDA build of torch (%s)" % build if build else "CUDA"
    return replace(outcome, remedy=replace(outcome.remedy, problem="The paste asks for %s on %s." % (asked, where)))


def torch_seen_at_work(outcome: Outcome, ctx, paste) -> Outcome:
    """A pass from a paste that shows torch running but not its version."""
    if outcome.status != Status.PASS or paste.has("torch.version"):
        return outcome
    return replace(outcome, summary="torch imports (the paste shows it at work; its version is not in the pasted text)")


def torch_before_mps(outcome: Outcome, ctx, paste) -> Outcome:
    """A torch older than 1.12, from its package version alone: it predates MPS."""
    if outcome.status != Status.FAIL or paste.parser("torch.mps_built") != "derived":
        return outcome
    version, first = paste.value("packages.torch"), ctx.releases.first_mps
    return replace(outcome, summary="torch %s predates MPS (it arrived in torch %s)" % (version, first),
                   remedy=replace(outcome.remedy, problem="torch %s has no MPS backend: MPS arrived in torch %s." % (
                       version, first)))


def mps_unavailable_versions_unknown(outcome: Outcome, ctx, paste) -> Outcome:
    """MPS unavailable while the paste lacks the macOS or torch version that would say why: ask for them first."""
    if outcome.status != Status.FAIL or outcome.remedy is None or outcome.remedy.key != "mps-unavailable" \
            or (paste.has(MACOS_VERSION) and paste.has(TORCH_VERSION)):
        return outcome
    remedy = replace(outcome.remedy, problem="torch.backends.mps.is_available() is False.",
                     actions=(run("sw_vers"), run(PASTED_PYTHON, "-m", "torch.utils.collect_env")) + outcome.remedy.actions,
                     why="Whether this macOS is new enough for this torch is not in the pasted text: the macOS and "
                         "torch versions tell (collect_env prints both). " + outcome.remedy.why)
    return replace(outcome, summary="MPS is not available (the macOS and torch versions that would tell why are not in "
                                    "the pasted text)", remedy=remedy)


def cuda_available_as_pasted(outcome: Outcome, ctx, paste) -> Outcome:
    """`torch.cuda.is_available()` as the paste states it: True passes even when no GPU name was read, and a pass names
    only what was read (no memory size the paste never showed)."""
    if paste.value("torch.cuda_available") is not True:
        return outcome
    names = paste.value("nvidia_smi.gpu") or ()
    return Outcome(Status.PASS, "torch.cuda.is_available() is True" + (": %s" % ", ".join(names) if names else ""))


def driver_as_pasted(outcome: Outcome, ctx, paste) -> Outcome:
    """A pass that says only what the paste shows of the driver: its version and the CUDA it runs (NVIDIA's table,
    when derived), else the GPUs listed."""
    if outcome.status != Status.PASS:
        return outcome
    driver, cuda = paste.value("nvidia_smi.driver_version"), paste.value("nvidia_smi.cuda_version")
    names = ", ".join(paste.value("nvidia_smi.gpu") or ()) or "no GPU listed"
    if not driver and paste.parser("nvidia_smi.gpu") in ("prose", "template"):
        # A GPU the person names is hardware, not a driver that loads.
        return Outcome(Status.SKIP, "not in the pasted text: the NVIDIA driver (the paste names the GPU, %s)" % names)
    if not driver:
        return replace(outcome, summary="an NVIDIA GPU is listed (%s); the driver's version is not in the pasted text" % names)
    runs = "" if not cuda else ", runs CUDA up to %s%s" % (
        cuda, " (NVIDIA's table for this driver)" if paste.parser("nvidia_smi.cuda_version") == "derived" else "")
    return replace(outcome, summary="driver %s%s; %s" % (driver, runs, names))
