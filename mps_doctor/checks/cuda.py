"""CUDA layers of the verdict: driver, build, driver/build match, visible devices, capability coverage."""

from dataclasses import dataclass
from typing import Tuple

from mps_doctor.checking.context import GET_STARTED, Context
from mps_doctor.checking.model import (
    Action,
    CheckAgain,
    InstallTorch,
    Outcome,
    Remedy,
    export,
    failed,
    note,
    passed,
    run,
    skipped,
    unset,
    warned,
)
from mps_doctor.checking.pasted import cuda_available_as_pasted, driver_as_pasted
from mps_doctor.checking.registry import check
from mps_doctor.known_errors import CUDA_UNAVAILABLE_REASON, first_of_kind
from mps_doctor.nvidia import minor_compatible, parse_visible_devices
from mps_doctor.release_choice import arch_covers
from mps_doctor.versions import version_tuple
from mps_doctor.words import shorten

DRIVER_DOWNLOAD = "https://www.nvidia.com/Download/index.aspx"
# Each release's install commands per CUDA build (pytorch.org).
PREVIOUS_VERSIONS = "https://pytorch.org/get-started/previous-versions/"
COMPAT_DOCS = "https://docs.nvidia.com/deploy/cuda-compatibility/"
CAPABILITY_DOCS = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/#binary-compatibility"
VISIBLE_DOCS = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/#env-vars"
PROFILE_NOTE = note("also remove the setting from your shell profile if it is there")
# The oldest Linux driver branch per CUDA major (CUDA Toolkit release notes, "CUDA Toolkit and Corresponding Driver
# Versions": 12.x needs >= 525.60.13, 13.x needs >= 580.65.06).
DRIVER_FOR_CUDA_MAJOR = {12: "525", 13: "580"}
DRIVER_GUIDE = "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/"
WSL_GUIDE = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"
UBUNTU_DRIVERS = "https://documentation.ubuntu.com/server/how-to/graphics/install-nvidia-drivers/"
DEBIAN_DRIVERS = "https://wiki.debian.org/NvidiaGraphicsDrivers"
RPMFUSION_NVIDIA = "https://rpmfusion.org/Howto/NVIDIA"
# os-release IDs (the `distro` package's id) of Red Hat Enterprise Linux and the distributions built from it, which
# NVIDIA's CUDA repository for rhelN serves (NVIDIA Driver Installation Guide, "Red Hat Enterprise Linux compatible
# distributions").
RHEL_FAMILY = ("rhel", "rocky", "almalinux", "centos", "ol")
# The folder of NVIDIA's repositories per machine: sbsa for 64-bit Arm servers (NVIDIA Driver Installation Guide).
NVIDIA_REPO_ARCH = {"x86_64": "x86_64", "aarch64": "sbsa"}
# Debian's kernel header metapackage per machine (wiki.debian.org/NvidiaGraphicsDrivers: linux-headers-amd64).
DEBIAN_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}


@dataclass(frozen=True)
class DriverRoute:
    """How this Linux gets NVIDIA's driver: the fix step's title, what to run (notes: it needs root), where it is
    written."""

    title: str
    lines: Tuple[str, ...]
    link: str


def wsl(host) -> bool:
    """Whether this Linux runs under WSL: its kernel release names Microsoft ('5.15.153.1-microsoft-standard-WSL2'; WSL
    1 says '4.4.0-19041-Microsoft', microsoft/WSL#423), or /dev/dxg, WSL 2's GPU device, exists."""
    hardware = host.nvidia_hardware
    return "microsoft" in (host.release or "").lower() or bool(hardware and "dxg" in (hardware.device_files or ()))


def driver_route(host) -> DriverRoute:
    """The way this machine installs NVIDIA's driver: Windows' driver under WSL, the distribution's own packages where
    its id says which (Ubuntu's ubuntu-drivers, Debian's non-free nvidia-driver, RPM Fusion's akmod-nvidia on Fedora,
    NVIDIA's CUDA repository on RHEL and its rebuilds), else NVIDIA's instructions."""
    if host.system == "Windows":
        # NVIDIA's driver downloads: Windows gets the driver (and nvidia-smi with it) from NVIDIA's installer.
        return DriverRoute("Install NVIDIA's driver for Windows", (
            "install NVIDIA's driver for Windows for this GPU: " + DRIVER_DOWNLOAD,), DRIVER_DOWNLOAD)
    distro = host.linux_distro or {}
    ident, version = (distro.get("id") or "").lower(), distro.get("version") or ""
    name = distro.get("name") or ident or "this Linux"
    reboot = "reboot, then check again"
    if wsl(host):
        # CUDA on WSL User Guide: the Windows driver provides CUDA inside WSL 2; a Linux driver there breaks it.
        return DriverRoute("Install NVIDIA's driver for Windows (WSL uses it)", (
            "under WSL the driver is Windows' own: install NVIDIA's driver for Windows, and no Linux driver in WSL",
            "WSL then provides nvidia-smi as /usr/lib/wsl/lib/nvidia-smi"), WSL_GUIDE)
    if ident == "ubuntu":
        # Ubuntu Server documentation, "NVIDIA drivers installation": ubuntu-drivers picks the recommended driver.
        return DriverRoute("Install the NVIDIA driver with ubuntu-drivers", (
            "%s: sudo ubuntu-drivers install   (the recommended driver)" % name,
            "on a compute server without a desktop: sudo ubuntu-drivers install --gpgpu", reboot), UBUNTU_DRIVERS)
    if ident == "debian":
        # wiki.debian.org/NvidiaGraphicsDrivers: nvidia-driver is in non-free; nvidia-smi and libcuda1 are packaged apart.
        headers = "linux-headers-%s " % DEBIAN_ARCH[host.doctor_machine] if host.doctor_machine in DEBIAN_ARCH else ""
        return DriverRoute("Install the NVIDIA driver from Debian's non-free packages", (
            "%s: add the components contrib non-free non-free-firmware to the apt sources, then" % name,
            "sudo apt update && sudo apt install %snvidia-driver firmware-misc-nonfree nvidia-smi libcuda1" % headers,
            reboot), DEBIAN_DRIVERS)
    if ident == "fedora":
        # rpmfusion.org/Howto/NVIDIA: akmod-nvidia builds the module; xorg-x11-drv-nvidia-cuda brings CUDA and nvidia-smi.
        return DriverRoute("Install the NVIDIA driver from RPM Fusion", (
            "%s: enable RPM Fusion's free and nonfree repositories (https://rpmfusion.org/Configuration), then" % name,
            "sudo dnf install akmod-nvidia xorg-x11-drv-nvidia-cuda",
            "wait until `modinfo -F version nvidia` prints a version (the module is built), then reboot"), RPMFUSION_NVIDIA)
    major = version.split(".")[0]
    if ident in RHEL_FAMILY and major.isdigit() and host.doctor_machine in NVIDIA_REPO_ARCH:
        repo = "https://developer.download.nvidia.com/compute/cuda/repos/rhel%s/%s/cuda-rhel%s.repo" % (
            major, NVIDIA_REPO_ARCH[host.doctor_machine], major)
        return DriverRoute("Install the NVIDIA driver from NVIDIA's repository", (
            "%s: add NVIDIA's CUDA repository (after EPEL and the kernel headers, as the guide says)" % name,
            "sudo dnf config-manager --add-repo " + repo, "sudo dnf install nvidia-open", reboot), DRIVER_GUIDE)
    return DriverRoute("Install the NVIDIA driver", (
        "install the driver as NVIDIA's guide says for %s: %s" % (name, DRIVER_GUIDE),
        "or with NVIDIA's own installer: " + DRIVER_DOWNLOAD), DRIVER_GUIDE)


def install_driver(ctx: Context, newer: str = "") -> Tuple[Action, ...]:
    """What installs NVIDIA's driver on this machine (NEWER: why the installed one must be replaced), as notes, then a
    check again."""
    lines = ((newer,) if newer else ()) + driver_route(ctx.host).lines
    # mps-doctor checks CUDA on Linux only; on Windows nvidia-smi (installed with the driver) shows the new driver.
    return tuple(note(line) for line in lines) + ((run("nvidia-smi"),) if ctx.host.system == "Windows" else (CheckAgain(),))




def cc_label(capability) -> str:
    return "%d.%d" % tuple(capability[:2])










def cuda_reinstall(ctx: Context) -> Tuple[Action, ...]:
    """Reinstall the installed torch release from the CUDA index this driver and GPU need; a newer driver when no
    CUDA build of it runs here."""
    if ctx.torch is not None and not ctx.torch_version():
        # A paste that shows a CPU build but not its version: the release to reinstall is the user's, read first.
        return (run(ctx.target.python, "-c", "import torch; print(torch.__version__)"), run("nvidia-smi"),
                note("then install that torch release from PyTorch's index for a CUDA up to the one nvidia-smi shows: "
                     + PREVIOUS_VERSIONS))
    release = ctx.release_to_reinstall()
    build = ctx.best_build(release)
    if build is not None:
        return (InstallTorch(release.torch, force=True, cuda=build),)
    if release is not None and release.cuda_builds and ctx.driver_cuda():
        return install_driver(ctx, newer="this driver (CUDA %s) runs no CUDA build of torch %s: install a newer driver" % (
            ctx.driver_cuda(), release.torch))
    # The release table lists CUDA builds from 2.9 on only: for an older release, the CUDA the driver runs decides.
    torch = "torch %s" % release.torch if release is not None else "torch"
    return (run("nvidia-smi"), note("then install %s from PyTorch's index for a CUDA up to the one nvidia-smi shows: %s"
                                    % (torch, PREVIOUS_VERSIONS)))


def cuda_reinstall_title(ctx: Context) -> str:
    """The fix step's title for cuda_reinstall(CTX) when it is a driver update (an install step is titled by the
    release it installs)."""
    release = ctx.release_to_reinstall()
    if ctx.torch is not None and not ctx.torch_version():
        return "Read the torch version and the CUDA the driver runs, then install a CUDA build of that torch"
    if ctx.best_build(release):
        return ""
    return "Update the NVIDIA driver" if release is not None and release.cuda_builds and ctx.driver_cuda() else \
        "Read the CUDA the driver runs, then install a CUDA build of torch"




@check("cuda.driver", "NVIDIA driver is installed",
       layer=45, devices=("cuda",), facts=("nvidia_smi.driver_version|nvidia_smi.gpu",), pasted=driver_as_pasted,
       evidence=("container-without-gpus", "hosted-runtime-without-gpu", "amd-gpu-for-cuda", "intel-gpu-for-cuda"))
def cuda_driver(ctx: Context) -> Outcome:
    """`nvidia-smi` (driver version, supported CUDA version) and `nvidia-smi -L` (GPUs), with a timeout. Without it,
    `/dev/nvidia*` and the PCI devices of vendor 0x10de tell a machine without an NVIDIA GPU (check on the CPU) from
    one without the driver, whose remedy is the distribution's way to install it (Ubuntu `ubuntu-drivers`, Debian's
    non-free `nvidia-driver`, Fedora's RPM Fusion `akmod-nvidia`, NVIDIA's repository on RHEL and its rebuilds,
    Windows' driver under WSL), else NVIDIA's instructions.
    """
    smi = ctx.host.nvidia_smi
    if smi is not None and smi.found and smi.error is None:
        gpus = ", ".join(smi.gpus) if smi.gpus else "no GPU listed"
        return passed("driver %s, supports CUDA %s; %s" % (smi.driver_version or "?", smi.cuda_version or "?", gpus))
    route = driver_route(ctx.host)
    if smi is not None and smi.found:
        return failed(
            "nvidia-smi cannot talk to the driver",
            Remedy("nvidia-smi: %s" % smi.error, "Without a working driver no CUDA program can start. After installing "
                   "or updating the driver, reboot; in a container, start it with the GPU passed in (docker run --gpus "
                   "all, with the NVIDIA Container Toolkit on the host).", install_driver(ctx), route.link,
                   key="install-driver", title=route.title),
        )
    if ctx.torch and ctx.torch.cuda_devices:
        return passed("nvidia-smi not on PATH, but torch sees %d GPU(s)" % len(ctx.torch.cuda_devices))
    hardware = ctx.host.nvidia_hardware
    if no_nvidia_gpu(ctx.host):
        return failed(
            "this machine has no NVIDIA GPU (no /dev/nvidia*, no PCI device of vendor 0x10de)",
            Remedy("nvidia-smi is not on PATH, torch sees no GPU, and neither /dev nor the PCI bus shows NVIDIA "
                   "hardware.", "CUDA runs only on an NVIDIA GPU: no driver or torch build can make it work here. "
                   "Train on the CPU here, or check on a machine with an NVIDIA GPU.", (CheckAgain(device="cpu"),),
                   GET_STARTED, key="no-nvidia-gpu", title="Use the CPU on this machine (it has no NVIDIA GPU)"),
        )
    loaded = [name for name in (hardware.device_files or ()) if name.startswith("nvidia")] if hardware else []
    if loaded:
        return warned(
            "nvidia-smi is not on PATH, but the driver's device files exist (%s); later layers decide" % ", ".join(
                "/dev/" + name for name in loaded[:3]),
            Remedy("The NVIDIA kernel driver is loaded, but nvidia-smi, which comes with its utilities, is missing.",
                   "Without nvidia-smi the driver's CUDA version is unknown. In a container started with the device "
                   "files only, start it with --gpus all (the NVIDIA Container Toolkit adds nvidia-smi and libcuda); on "
                   "the host, install the driver's utilities the way the driver came.", install_driver(ctx),
                   route.link, key="install-driver-utilities", title="Install nvidia-smi with the driver's utilities"),
        )
    on_pci = ", ".join(hardware.pci_devices or ()) if hardware else ""
    return failed(
        "no NVIDIA driver for the GPU at PCI %s (no nvidia-smi, no /dev/nvidia*)" % on_pci if on_pci else
        "no NVIDIA driver found (nvidia-smi is not on PATH)",
        Remedy("nvidia-smi was not found and torch sees no GPU%s." % (
                   ", although the PCI bus shows an NVIDIA device at %s" % on_pci if on_pci else ""),
               "CUDA needs an NVIDIA GPU and its driver; in a container, the driver belongs on the host and the GPU "
               "must be passed in (docker run --gpus all, or Kubernetes runtimeClassName: nvidia).",
               install_driver(ctx), route.link, key="install-driver", title=route.title),
    )


def no_nvidia_gpu(host) -> bool:
    """Whether the facts show that this machine has no NVIDIA GPU: no NVIDIA device files under /dev and no PCI device
    of vendor 0x10de, outside WSL (whose GPU is not on PCI)."""
    hardware = host.nvidia_hardware
    return bool(hardware is not None and hardware.device_files == () and hardware.pci_devices == () and not wsl(host))



@check("cuda.driver-version", "The driver supports the wheel's CUDA version",
       layer=76, devices=("cuda",), facts=("torch.cuda_version", "nvidia_smi.cuda_version|message"))
def cuda_driver_version(ctx: Context) -> Outcome:
    """nvidia-smi's CUDA version (or torch's 'driver too old (found version N)') against the wheel's: another major
    fails, an older minor warns from CUDA 11 on (minor-version compatibility) and fails before it (NVIDIA CUDA
    compatibility guide). When the installed torch is the plain PyPI wheel
    (no local label), the remedy says that PyPI's Linux x86_64 wheel is one CUDA build per release
    (`pypi_linux_cuda`: 12.8 up to 2.10, 13.0 for 2.11-2.14, 13.2 for 2.15; CUDA 13 needs driver >= 580) and names
    the cuXYZ index the driver runs.
    """
    wheel, driver = ctx.torch.cuda_version, ctx.driver_cuda()
    if driver is None:
        return warned(
            "the driver's CUDA version is unknown; later layers decide",
            Remedy("nvidia-smi did not report a CUDA version.", "The driver must support the wheel's CUDA %s." % wheel,
                   (run("nvidia-smi"),), COMPAT_DOCS, key="read-driver"),
        )
    # Before CUDA 11 there is no minor-version compatibility: an older minor fails too (data/nvidia.json).
    if version_tuple(driver)[:1] < version_tuple(wheel)[:1] or (
            version_tuple(driver) < version_tuple(wheel) and not minor_compatible(wheel)):
        needed = DRIVER_FOR_CUDA_MAJOR.get(version_tuple(wheel)[0])
        return failed(
            "the driver supports CUDA %s, but torch was built for CUDA %s" % (driver, wheel),
            Remedy("torch %s needs a driver for CUDA %s%s; this driver stops at %s." % (
                       ctx.torch.version, wheel, " (NVIDIA driver >= %s)" % needed if needed else "", driver),
                   pypi_default_note(ctx, wheel) + "torch then fails with 'The NVIDIA driver on your system is too old'. "
                   "Update the driver, or install the same torch built for an older CUDA from its index.",
                   cuda_reinstall(ctx), COMPAT_DOCS, key="driver-too-old", title=cuda_reinstall_title(ctx)),
        )
    if version_tuple(driver) < version_tuple(wheel):
        return warned(
            "the driver supports CUDA %s, the wheel is CUDA %s (minor-version compatibility)" % (driver, wheel),
            Remedy("Same CUDA major, older minor.", "Runs through CUDA minor-version compatibility, without PTX JIT; a "
                   "matching driver or wheel avoids surprises.", cuda_reinstall(ctx), COMPAT_DOCS, key="driver-minor",
                   title=cuda_reinstall_title(ctx)),
        )
    return passed("driver CUDA %s >= wheel CUDA %s" % (driver, wheel))


def pypi_default_note(ctx: Context, wheel: str) -> str:
    """A sentence when the installed torch is the plain PyPI build: PyPI's Linux x86_64 wheel is one CUDA build."""
    version = ctx.torch.version or ""
    release, exact = ctx.releases.row_for(version)
    if "+" in version or not exact or release.pypi_linux_cuda != wheel:
        return ""
    # torch/version.py of the PyPI Linux x86_64 wheel (read by tools.refresh): its CUDA is fixed per release.
    return ("A plain `pip install torch` on Linux x86_64 gets torch %s's CUDA %s build from PyPI; other CUDA builds "
            "come only from PyTorch's own index (--index-url). " % (release.torch, wheel))


@check("cuda.visible-devices", "CUDA_VISIBLE_DEVICES leaves GPUs visible",
       layer=77, devices=("cuda",), facts=("env.CUDA_VISIBLE_DEVICES",), evidence=("gpu-hidden-from-the-program",))
def cuda_visible_devices(ctx: Context) -> Outcome:
    """`CUDA_VISIBLE_DEVICES`: empty hides every GPU, an invalid entry hides itself and all after it (CUDA programming
    guide).
    """
    value = ctx.host.env.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return passed("CUDA_VISIBLE_DEVICES is not set: every GPU is visible")
    smi = ctx.host.nvidia_smi
    count = len(smi.gpus) if smi and smi.gpus else None
    visible, invalid = parse_visible_devices(value, count)
    # NVIDIA: an empty value hides every GPU, and an invalid entry hides itself and every entry after it.
    if not visible:
        return failed(
            "CUDA_VISIBLE_DEVICES=%r hides every GPU" % value,
            Remedy("CUDA_VISIBLE_DEVICES is %r." % value,
                   "An empty or invalid value (such as -1, often left in a shell profile) makes "
                   "torch.cuda.is_available() False without any error.",
                   (unset("CUDA_VISIBLE_DEVICES"), PROFILE_NOTE, run("nvidia-smi", "-L")), VISIBLE_DOCS,
                   key="fix-visible-devices", title="Make the GPUs visible again"),
        )
    if invalid is not None:
        return warned(
            "CUDA_VISIBLE_DEVICES=%r: %r is invalid and hides every entry after it" % (value, invalid),
            Remedy("Only %s stay visible." % ",".join(visible), "CUDA stops reading the list at the first invalid entry.",
                   (export("CUDA_VISIBLE_DEVICES", ",".join(visible)), PROFILE_NOTE, run("nvidia-smi", "-L")),
                   VISIBLE_DOCS, key="fix-visible-devices", title="Make the GPUs visible again"),
        )
    return passed("CUDA_VISIBLE_DEVICES=%s" % value)


@check("cuda.available", "torch sees a CUDA GPU",
       layer=85, devices=("cuda",), facts=("torch.cuda_available",), pasted=cuda_available_as_pasted)
def cuda_available(ctx: Context) -> Outcome:
    """`torch.cuda.is_available()`, with torch's CUDA initialization warning as the reason."""
    if ctx.torch.cuda_available and ctx.torch.cuda_devices:
        return passed("%d GPU(s): %s" % (len(ctx.torch.cuda_devices), ", ".join(
            "%s (%s, %.0f GiB)" % (d.name, cc_label(d.capability), (d.total_memory or 0) / 1024 ** 3)
            for d in ctx.torch.cuda_devices)))
    reason = next((w for w in ctx.torch.warnings if first_of_kind(CUDA_UNAVAILABLE_REASON, w)), None)
    return failed(
        "torch.cuda.is_available() is False" + (": %s" % shorten(reason.split(":", 2)[-1].strip(), 160) if reason else ""),
        Remedy(reason or "torch found no usable GPU.",
               "torch returns False instead of raising; its warning names the reason. Run nvidia-smi as this user.",
               (run("nvidia-smi"), run(ctx.target.python, "-c", "import torch; print(torch.cuda.device_count())")),
               GET_STARTED, key="cuda-unavailable"),
    )


@check("cuda.capability", "The wheel has kernels for every visible GPU",
       layer=87, devices=("cuda",), facts=("torch.cuda_arch_list", "torch.cuda_devices"),
       evidence=("gpu-too-old-for-torch", "gpu-too-old-for-triton", "gpu-below-cuda-floor", "capability-limit-retold"))
def cuda_capability(ctx: Context) -> Outcome:
    """each GPU's compute capability against `torch.cuda.get_arch_list()` (sm_XY runs on X.Z with Z >= Y; compute_XY
    PTX on anything newer). The fix picks the CUDA build from the release table (PYTORCH_RELEASES_CODE_CC in the
    torch 2.13 wheel).
    """
    arch = ctx.torch.cuda_arch_list
    if not arch:
        return skipped("torch reports no arch list")
    uncovered = [d for d in ctx.torch.cuda_devices if not arch_covers(arch, d.capability)]
    if uncovered:
        names = ", ".join("GPU%d %s (%s)" % (d.index, d.name, cc_label(d.capability)) for d in uncovered)
        return failed(
            "no kernels for %s in this wheel (built for %s)" % (names, " ".join(arch)),
            Remedy("torch %s was built for %s." % (ctx.torch.version, " ".join(arch)),
                   "Every CUDA kernel then fails with 'no kernel image is available for execution on the device'. "
                   "Another CUDA build of the same release covers this GPU.",
                   cuda_reinstall(ctx), CAPABILITY_DOCS, key="cuda-capability", title=cuda_reinstall_title(ctx)),
        )
    return passed("%s covered by %s" % (", ".join(cc_label(d.capability) for d in ctx.torch.cuda_devices), " ".join(arch)))


@check("cuda.unused-gpu", "An NVIDIA GPU is not left unused by a CPU-only torch", advisory=90)
def cuda_unused_gpu(ctx: Context) -> Outcome:
    """nvidia-smi lists GPUs while `torch.version.cuda` is None, and the run is not on cuda (mps-facts.md 7.2 item 1).
    """
    smi = ctx.host.nvidia_smi
    if ctx.host.system != "Linux" or smi is None or not smi.gpus:
        return skipped("no NVIDIA GPU listed")
    if ctx.device == "cuda":
        return skipped("the CUDA layers check it")
    if ctx.torch is None or not ctx.torch.installed or ctx.torch.cuda_version:
        return passed("torch can use the GPU: run mps-doctor check --device cuda" if ctx.torch and ctx.torch.cuda_version
                      else "torch is not installed")
    return warned(
        "this machine has %s, but torch %s is a CPU-only build" % (", ".join(smi.gpus), ctx.torch.version),
        Remedy("nvidia-smi lists %d GPU(s); torch.version.cuda is None." % len(smi.gpus),
               "Training runs on the CPU, typically 10x slower or worse (docs/measurements.md: 10.5x on an H200 "
               "for the MNIST network at batch 64).", cuda_reinstall(ctx), GET_STARTED, key="install-cuda-torch",
               title=cuda_reinstall_title(ctx)),
    )
