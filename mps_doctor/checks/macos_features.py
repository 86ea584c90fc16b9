"""An advisory: torch releases whose MPS runs on macOS 12.3 or 13 still gate bfloat16, complex and FFT on macOS 14."""

from mps_doctor.checks.context import PYTORCH_MPS_DOCS, Context, at_least
from mps_doctor.checks.model import Outcome, Remedy, note, passed, run, skipped, warned
from mps_doctor.checks.registry import check
from mps_doctor.versions import minor_of

# The releases that gate these features and the macOS they need are the release table's `mps_features_gated`, read from
# the macOS arm64 wheels of torch 2.3.0 to 2.9.0; the messages are those wheels' libtorch_cpu.dylib strings
# (EmptyTensor.cpp:46, OperationUtils.mm, FastFourierTransform.mm). From 2.9 MPS itself needs macOS 14.
MESSAGES = ("TypeError: MPS BFloat16 is only supported on MacOS 14 or newer",
            "TypeError: MPS complex types are only supported on MacOS 14.0 or newer.",
            "RuntimeError: FFT operations are only supported on MacOS 14+")


@check("macos.mps-features", "bfloat16, complex and FFT run on MPS on this macOS", advisory=True)
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
