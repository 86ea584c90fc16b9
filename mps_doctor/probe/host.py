"""The host probe: what the machine is, read in the doctor process. Parsers take recorded text."""

import os
import platform
import posixpath
import re
import shutil
from typing import Callable, Mapping, Optional, Sequence, Tuple

from mps_doctor.environment import relevant_env
from mps_doctor.facts import Host, NvidiaHardware, NvidiaSmi
from mps_doctor.probe.runner import Runner, run_command
from mps_doctor.versions import is_number
from mps_doctor.words import shorten

# Installers whose presence changes the fix plan; looked up on PATH, never run.
TOOLS = ("uv", "conda", "mamba", "brew", "pyenv")
# Homebrew's default prefixes: /opt/homebrew on Apple Silicon, /usr/local on Intel (Homebrew docs/Installation.md).
BREW_PREFIXES = ("/opt/homebrew", "/usr/local")
# Device files of an NVIDIA GPU: the driver's /dev/nvidia0..N, nvidiactl, nvidia-uvm and nvidia-caps (NVIDIA driver
# README, "Installing the NVIDIA Driver"); /dev/dxg, WSL 2's GPU paravirtualization device (NVIDIA CUDA on WSL User
# Guide); Jetson's integrated GPU, which is not on PCI: /dev/nvhost-* and /dev/nvgpu/ (NVIDIA Jetson Linux Developer
# Guide).
GPU_DEVICE_FILE = re.compile(r"^(nvidia|nvhost|nvgpu)|^dxg$")
# sysfs lists every PCI device with its vendor id in /sys/bus/pci/devices/*/vendor (Linux ABI, sysfs-bus-pci);
# 0x10de is NVIDIA's vendor id (the PCI ID Repository, pci-ids.ucw.cz).
PCI_DEVICES = "/sys/bus/pci/devices"
NVIDIA_PCI_VENDOR = "0x10de"


def parse_sw_vers(text: str) -> Tuple[Optional[str], Optional[str]]:
    """(ProductVersion, BuildVersion) from `sw_vers` output."""
    fields = dict(re.findall(r"^(\w+):\s*(\S.*?)\s*$", text, flags=re.M))
    return fields.get("ProductVersion"), fields.get("BuildVersion")


def normalize_macos_version(version: Optional[str], build: Optional[str]) -> Optional[str]:
    """The real macOS version: a 16.x that comes with a 25x build is macOS 26 (cpython#135675)."""
    if not version:
        return None
    major, _, rest = version.partition(".")
    if major == "16" and build and build.startswith("25"):
        return "26" + ("." + rest if rest else "")
    return version


def parse_sysctl(result) -> Optional[str]:
    """The value of one `sysctl -n KEY`; '' when the key does not exist; None when sysctl could not run."""
    if result.returncode is None:
        return None
    if result.returncode != 0:
        return "" if "unknown oid" in result.stderr or "No such file" in result.stderr else None
    return result.stdout.strip()


def sysctl_flag(value: Optional[str]) -> Optional[bool]:
    """A 0/1 sysctl as a bool; a missing key ('') is False, an unreadable one (None) unknown."""
    if value is None:
        return None
    if value == "":
        return False
    return value.strip() == "1"


def gpu_name(listed: str) -> str:
    """The name in what follows `GPU 0: ` in `nvidia-smi -L`: 'NVIDIA H200 (UUID: GPU-...)' gives 'NVIDIA H200'."""
    uuid = listed.find("(UUID:", 1)
    return (listed[:uuid] if uuid > 0 else listed).strip()


def parse_nvidia_smi(header: str, listing: str) -> NvidiaSmi:
    """Driver and supported CUDA version from `nvidia-smi`, GPU names from `nvidia-smi -L`."""
    driver = re.search(r"Driver Version:\s*([\d.]+)", header)
    cuda = re.search(r"CUDA Version:\s*([\d.]+)", header)
    gpus = tuple(gpu_name(m.group(1)) for m in re.finditer(r"^GPU \d+:\s*(\S.*)$", listing, flags=re.M))
    return NvidiaSmi(found=True, driver_version=driver.group(1) if driver else None,
                     cuda_version=cuda.group(1) if cuda else None, gpus=gpus)


def probe_nvidia_smi(run: Runner, which: Callable[[str], Optional[str]]) -> Optional[NvidiaSmi]:
    """nvidia-smi facts, NvidiaSmi(found=False) when the command is absent."""
    if which("nvidia-smi") is None:
        return NvidiaSmi(found=False)
    header = run(["nvidia-smi"], timeout=15)
    if not header.ok:
        return NvidiaSmi(found=True, error=shorten(header.error or header.stderr.strip() or header.stdout.strip(), 300))
    listing = run(["nvidia-smi", "-L"], timeout=15)
    return parse_nvidia_smi(header.stdout, listing.stdout if listing.ok else "")


def probe_nvidia_hardware(listdir: Callable[[str], Optional[Sequence[str]]],
                          read_text: Callable[[str], Optional[str]]) -> Optional[NvidiaHardware]:
    """NVIDIA's device files under /dev and the PCI devices of vendor 0x10de; None when neither can be read."""
    names = listdir("/dev")
    files = None if names is None else tuple(sorted(name for name in names if GPU_DEVICE_FILE.search(name)))
    pci = nvidia_pci_devices(listdir, read_text)
    return None if files is None and pci is None else NvidiaHardware(device_files=files, pci_devices=pci)


def nvidia_pci_devices(listdir: Callable[[str], Optional[Sequence[str]]],
                       read_text: Callable[[str], Optional[str]]) -> Optional[Tuple[str, ...]]:
    """The addresses of the PCI devices of vendor 0x10de; None when no PCI device is visible (a sandbox, a machine
    without PCI) or a vendor id cannot be read."""
    addresses = listdir(PCI_DEVICES)
    if not addresses:
        return None
    found = []
    for address in sorted(addresses):
        vendor = read_text(posixpath.join(PCI_DEVICES, address, "vendor"))
        if vendor is None:
            return None
        if vendor.strip().lower() == NVIDIA_PCI_VENDOR:
            found.append(address)
    return tuple(found)


def list_dir(path: str) -> Optional[Sequence[str]]:
    """The names in the folder PATH, or None when it cannot be listed."""
    try:
        return os.listdir(path)
    except OSError:
        return None


def read_small_text(path: str) -> Optional[str]:
    """The first 4 KiB of the text file PATH (a sysfs attribute), or None when it cannot be read."""
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read(4096)
    except OSError:
        return None


def collect_host(
    run: Runner = run_command,
    environ: Optional[Mapping[str, str]] = None,
    system: Optional[str] = None,
    which: Callable[[str], Optional[str]] = shutil.which,
    path_exists: Callable[[str], bool] = os.path.exists,
    uname: Optional[Tuple[str, str]] = None,
    memory: Callable[[], Optional[int]] = None,
    distro_reader: Callable[[], Optional[dict]] = None,
    listdir: Callable[[str], Optional[Sequence[str]]] = list_dir,
    read_text: Callable[[str], Optional[str]] = read_small_text,
) -> Host:
    """Probe the host; every argument can be injected, and given facts are never re-read from the machine."""
    environ = os.environ if environ is None else environ
    system = system or platform.system()
    release, machine = uname or (platform.release(), platform.machine())
    distro_reader = distro_reader or linux_distro
    common = dict(
        system=system, release=release, doctor_machine=machine, env=relevant_env(environ),
        home=environ.get("HOME") or os.path.expanduser("~"), user=user_name(environ),
        memory_bytes=(memory or memory_total)(),
        tools={name: found for name, found in ((name, which(name)) for name in TOOLS) if found},
    )
    if system == "Darwin":
        return collect_macos(run, path_exists, common)
    if system == "Linux":
        return Host(linux_distro=distro_reader(), nvidia_smi=probe_nvidia_smi(run, which),
                    nvidia_hardware=probe_nvidia_hardware(listdir, read_text), **common)
    return Host(**common)


def collect_macos(run: Runner, path_exists: Callable[[str], bool], common: dict) -> Host:
    """macOS facts from sw_vers and sysctl."""
    # SYSTEM_VERSION_COMPAT=0 makes sw_vers report 11+ instead of the 10.16 compatibility version (packaging tags.py).
    sw = run(["sw_vers"], env={"SYSTEM_VERSION_COMPAT": "0"})
    version, build = parse_sw_vers(sw.stdout) if sw.ok else (None, None)

    def sysctl(key: str) -> Optional[str]:
        return parse_sysctl(run(["sysctl", "-n", key]))

    memsize = sysctl("hw.memsize")
    common = dict(common)
    if memsize and is_number(memsize):
        common["memory_bytes"] = int(memsize)
    return Host(
        macos_version=normalize_macos_version(version, build),
        macos_build=build,
        # hw.optional.arm64 answers 1 on Apple Silicon even to an x86_64 process (CMake MR 5291).
        hw_arm64=sysctl_flag(sysctl("hw.optional.arm64")),
        # kern.hv_vmm_present is 1 inside a virtual machine (Apple corecrypto cc_is_vmm_present).
        vmm_present=sysctl_flag(sysctl("kern.hv_vmm_present")),
        cpu_brand=sysctl("machdep.cpu.brand_string") or None,
        brew_prefixes=tuple(p for p in BREW_PREFIXES if path_exists(os.path.join(p, "bin", "brew"))),
        **common,
    )


def user_name(environ: Mapping[str, str]) -> Optional[str]:
    """The user's login name: USER, LOGNAME or USERNAME, else the password database (root, Docker and cron often
    run without USER)."""
    name = environ.get("USER") or environ.get("LOGNAME") or environ.get("USERNAME")
    if name:
        return name
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError, OSError):
        return None


def memory_total() -> Optional[int]:
    """Total physical memory in bytes via psutil, or None."""
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except Exception:
        return None


def linux_distro() -> Optional[dict]:
    """id, version and name of the Linux distribution (distro package), or None when it cannot be read."""
    try:
        import distro
    except ImportError:
        return None
    return {"id": distro.id(), "version": distro.version(), "name": distro.name(pretty=True)}
