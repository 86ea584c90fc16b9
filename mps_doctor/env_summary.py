"""The environment summary of a report, like torch.utils.collect_env: what a bug report needs besides the verdict."""

from typing import List, Tuple

from mps_doctor.facts import Facts

# Companion and related packages, in the order the summary lists them (read by the child from their metadata).
SUMMARY_PACKAGES = ("numpy", "torchvision", "torchaudio", "transformers", "accelerate", "lightning",
                    "pytorch-lightning")


def environment_summary(facts: Facts) -> List[Tuple[str, str]]:
    """(label, value) rows: OS and libc, CPU, memory, Python, torch and its build, accelerators, related packages.
    Unknown facts are left out."""
    host, target = facts.host, facts.target
    interp, torch = target.interpreter, target.torch
    rows: List[Tuple[str, str]] = []
    if host.system == "Darwin":
        rows.append(("OS", "macOS %s (%s)" % (host.macos_version or "?", host.macos_build or "build ?")))
    else:
        distro = (host.linux_distro or {}).get("pretty_name") or (host.linux_distro or {}).get("name")
        rows.append(("OS", "%s%s" % (host.system, " (%s)" % distro if distro else "")
                     + (", kernel %s" % host.release if host.release else "")))
    if interp is not None and interp.libc:
        rows.append(("libc", interp.libc))
    cpu = host.cpu_brand or (interp.cpu_model if interp is not None else None)
    if cpu:
        rows.append(("CPU", cpu))
    if host.memory_bytes:
        rows.append(("memory", "%.0f GiB" % (host.memory_bytes / 2.0 ** 30)))
    if interp is not None:
        rows.append(("Python", "%s %s (%s) at %s" % (interp.implementation or "Python", ".".join(map(str, interp.version)),
                                                    interp.machine or "?", target.python)))
    if torch is not None and (torch.version or torch.packages.get("torch")):
        rows.append(("torch", "%s%s" % (torch.version or torch.packages.get("torch"),
                                        " at %s" % torch.file if torch.file else "")))
    if torch is not None and torch.build:
        rows.append(("torch build", build_digest(torch.build)))
    if torch is not None and torch.mps_built is not None:
        rows.append(("MPS", "built %s, available %s%s" % (yes(torch.mps_built), yes(torch.mps_available),
                                                          " (%s)" % torch.mps_name if torch.mps_name else "")))
    if torch is not None and (torch.cuda_version or torch.cuda_devices):
        devices = ", ".join(gpu_label(d) for d in torch.cuda_devices)
        rows.append(("CUDA", "torch built for %s, available %s%s" % (torch.cuda_version or "no CUDA",
                                                                     yes(torch.cuda_available),
                                                                     ": " + devices if devices else "")))
    smi = host.nvidia_smi
    if smi is not None and smi.found:
        rows.append(("NVIDIA driver", "%s (CUDA %s)" % (smi.driver_version or "?", smi.cuda_version or "?")))
    if torch is not None:
        packages = ", ".join("%s %s" % (name, torch.packages[name]) for name in SUMMARY_PACKAGES
                             if torch.packages.get(name))
        rows.append(("packages", packages or "none of " + ", ".join(SUMMARY_PACKAGES)))
    return rows


def build_digest(build) -> str:
    """The torch build configuration in one line."""
    parts = []
    if build.get("compiler"):
        parts.append(build["compiler"])
    blas = build.get("BLAS_INFO")
    if blas:
        parts.append("BLAS %s" % blas + (", LAPACK %s" % build["LAPACK_INFO"] if build.get("LAPACK_INFO") else ""))
    if build.get("openmp"):
        parts.append(build["openmp"])
    elif build.get("USE_OPENMP"):
        parts.append("OpenMP %s" % build["USE_OPENMP"])
    if build.get("cpu_capability"):
        parts.append("CPU capability %s" % build["cpu_capability"])
    cuda = build.get("cuda_runtime") or build.get("CUDA_VERSION")
    if cuda:
        parts.append("CUDA runtime %s" % cuda)
    # The build settings' CUDNN_VERSION (9.10.2) over the "CuDNN" line, which torch 2.10 builds print as 91.0.2.
    cudnn = build.get("CUDNN_VERSION") or build.get("cudnn")
    if cudnn:
        parts.append("cuDNN %s" % cudnn)
    if build.get("hip"):
        parts.append("HIP %s" % build["hip"])
    return "; ".join(parts) or "no details"


def yes(value) -> str:
    return "unknown" if value is None else "yes" if value else "no"


def gpu_label(device) -> str:
    """'NAME (sm_XY)', or the name alone where the compute capability is unknown (a paste that does not show it)."""
    capability = tuple(device.capability or ())
    if len(capability) >= 2:
        return "%s (sm_%d%d)" % (device.name, capability[0], capability[1])
    return str(device.name)
