"""Device choice, shared by the probe and the report: which devices the facts show usable, what `auto` resolves to,
and the hosted-runner fallback that checks the CPU on a Mac without MPS."""

from typing import TYPE_CHECKING, Mapping, Optional, Sequence, Tuple

from mps_doctor.ci import hosted_macos_runner
from mps_doctor.errors import UsageError

if TYPE_CHECKING:  # for the annotations only: the CLI reads DEVICES at start-up, before any facts exist
    from mps_doctor.facts import Facts, Host

# The devices mps-doctor checks, in the order its options, reports and messages list them; `auto` (a command line's or
# a report's choice) is resolved by resolve_device.
DEVICES = ("mps", "cpu", "cuda")
AUTO = "auto"
DEVICE_CHOICES = (AUTO,) + DEVICES
HOSTED_SKIP = "skipped: hosted macOS runner (no MPS there)"


def usable(device: str, facts: "Facts") -> bool:
    """Whether the facts say DEVICE can run torch work (unknown counts as no)."""
    torch = facts.target.torch
    if device == "cpu":
        return True
    if device == "mps":
        return bool(facts.host.system == "Darwin" and torch and torch.mps_available)
    return bool(torch and torch.cuda_available)


def hosted_runner(host: "Host") -> bool:
    """Whether HOST is a hosted macOS CI runner (see ci.hosted_macos_runner)."""
    return hosted_macos_runner(host.env, host.vmm_present)


def resolve_device(options, facts: "Facts") -> str:
    """The device the verdict is about, for OPTIONS (the run's checking.model.Options: requested_device, policy,
    demanded, required): the one asked for; else the first usable device --require-device lists, else the policy's;
    else mps on macOS (cpu on a hosted runner, unless MPS is demanded), cuda where torch sees a GPU, else cpu."""
    if options.requested_device != "auto":
        return options.requested_device
    if options.required:
        return next((d for d in options.required if usable(d, facts)), options.required[0])
    if options.policy.devices:
        return next((d for d in options.policy.devices if usable(d, facts)), options.policy.devices[0])
    if facts.host.system == "Darwin":
        return "cpu" if hosted_runner(facts.host) and "mps" not in options.demanded else "mps"
    if facts.target.torch is not None and facts.target.torch.cuda_available:
        return "cuda"
    return "cpu"


def child_device(requested: str, policy_devices: Sequence[str], env: Mapping[str, str], system: str,
                 vmm_present: Optional[bool]) -> str:
    """What to ask the probe child to run parity and smoke on, before the host facts are complete."""
    if requested != "auto":
        return requested
    if policy_devices:
        return ",".join(policy_devices)
    if system == "Darwin" and hosted_macos_runner(env, vmm_present):
        return "cpu"
    return "auto"


def hosted_cpu_fallback(device: str, requested: str, host: "Host") -> bool:
    """Whether a run checks the CPU in place of MPS because `auto` found a hosted macOS runner: the MPS layers are
    then listed, and those the CPU does not share are skipped with HOSTED_SKIP."""
    return device == "cpu" and requested == "auto" and host.system == "Darwin" and hosted_runner(host)


def probed_devices(target) -> Tuple[str, ...]:
    """The devices a (recorded) probe child ran, or would have run, its tensor work on: the parity or smoke stage's
    device, else the device it was asked for, with auto resolved as the child does (mpsd_probe.resolve_device)."""
    for stage in (target.parity, target.smoke):
        if stage is not None:
            return (stage.device,)
    if target.device != "auto":
        return tuple(target.device.split(","))
    interp, torch = target.interpreter, target.torch
    if interp is not None and interp.sys_platform == "darwin":
        return ("mps",)
    if torch is not None and torch.cuda_available:
        return ("cuda",)
    return ("cpu",) if interp is not None and interp.sys_platform else ()


def check_replay_device(facts: "Facts", device: str, device_work_selected: bool = True) -> None:
    """Raise UsageError when a saved report is replayed for a DEVICE its probe never ran tensor work on, and that
    work matters: torch imported there, and the checks that judge device work run (DEVICE_WORK_SELECTED)."""
    probed = probed_devices(facts.target)
    torch = facts.target.torch
    if device == "auto" or not probed or device in probed or torch is None or not torch.version:
        return
    if not device_work_selected:
        return
    raise UsageError("--device %s: this report's device work was probed for %s, so it cannot tell whether %s works; run "
                     "`mps-doctor check --device %s` on that machine" % (device, ", ".join(probed), device, device))
