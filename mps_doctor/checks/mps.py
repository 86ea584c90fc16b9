"""MPS itself: available outside virtual machines and sandboxes, and its features gated on newer macOS."""

from mps_doctor.checking.context import PYTORCH_MPS_DOCS, Context
from mps_doctor.checking.model import CheckAgain, Outcome, Remedy, failed, note, passed, run, skipped, warned
from mps_doctor.checking.pasted import mps_unavailable_versions_unknown
from mps_doctor.checking.registry import check
from mps_doctor.checks.platform import upgrade_macos_or_pin
from mps_doctor.devices import hosted_runner
from mps_doctor.versions import at_least, minor_of

HOSTED_RUNNER_DOCS = "https://docs.github.com/en/actions/using-github-hosted-runners/about-github-hosted-runners"


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
       layer=80, devices=("mps",), facts=("torch.mps_available",), pasted=mps_unavailable_versions_unknown,
       evidence=("hosted-macos-runner",))
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


# The releases that gate these features and the macOS they need are the release table's `mps_features_gated`, read from
# the macOS arm64 wheels of torch 2.3.0 to 2.9.0; the messages are those wheels' libtorch_cpu.dylib strings
# (EmptyTensor.cpp:46, OperationUtils.mm, FastFourierTransform.mm). From 2.9 MPS itself needs macOS 14.
MESSAGES = ("TypeError: MPS BFloat16 is only supported on MacOS 14 or newer",
            "TypeError: MPS complex types are only supported on MacOS 14.0 or newer.",
            "RuntimeError: FFT operations are only supported on MacOS 14+")


@check("macos.mps-features", "bfloat16, complex and FFT run on MPS on this macOS", advisory=100)
def macos_mps_features(ctx: Context) -> Outcome:
    """bfloat16, complex and FFT on MPS with torch 2.3-2.8 on macOS below 14: those releases check
    `is_macos_13_or_newer(MACOS_VER_14_0_PLUS)` before each (read from the 2.3.0-2.9.0 macOS arm64 wheels:
    EmptyTensor.cpp:46 'MPS BFloat16 is only supported on MacOS 14 or newer', OperationUtils.mm 'MPS complex types
    are only supported on MacOS 14.0 or newer.', FastFourierTransform.mm 'FFT operations are only supported on MacOS
    14+'); from 2.9 MPS itself needs macOS 14.
    """
    if not ctx.is_mac or ctx.device != "mps":
        return skipped("not an MPS run")
    version, macos = ctx.torch_version(), ctx.macos()
    if not ctx.torch_imported() or not ctx.torch.mps_available or not version or not macos:
        return skipped("MPS is not available here, or the torch or macOS version is unknown")
    gated, features_macos = ctx.releases.features_gated, ctx.releases.features_macos
    if at_least(macos, features_macos):
        return passed("macOS %s >= %s: bfloat16, complex and FFT run on MPS" % (macos, features_macos))
    first, last = (minor_of(v) for v in gated)
    minor = minor_of(version)
    if minor is None:
        return skipped("torch's version %s is not a release number" % version)
    if not first <= minor <= last:
        return passed("torch %s is outside %s-%s, whose MPS gates these on macOS %s" % (
            version, gated[0], gated[1], features_macos.split(".")[0]))
    return warned(
        "torch %s runs MPS on macOS %s, but bfloat16, complex tensors and torch.fft on MPS need macOS %s"
        % (version, macos, features_macos),
        Remedy("On macOS %s this torch raises: %s" % (macos, "; ".join(MESSAGES)),
               "torch %s-%s check for macOS %s before these features; PYTORCH_ENABLE_MPS_FALLBACK does not help, since "
               "the kernels exist and refuse. Upgrade macOS, or keep such tensors in float32, real-valued, or on the "
               "CPU." % (gated[0], gated[1], features_macos.split(".")[0]),
               (run("softwareupdate", "--list"),
                note("until then: float32 instead of bfloat16, real instead of complex tensors, torch.fft on the CPU")),
               PYTORCH_MPS_DOCS, key="upgrade-macos-for-features",
               title="Upgrade macOS to %s or newer for bfloat16, complex and FFT on MPS" % features_macos),
    )
