"""The `check` mode of the probe child: interpreter facts, torch facts, device parity and the smoke step.

Each stage is framed by a `begin` and a `result` line, so that the doctor knows in which stage a crash,
a hang or an `Illegal instruction` happened. Only facts are reported here; the doctor judges them.
"""
import os
import platform
import struct
import sys
import sysconfig
import time
import traceback
import warnings

# Warnings that name a silent move of work to the CPU (MPSFallback.mm, reference/mps-facts.md P5).
FALLBACK_MARKERS = ("fall back to run on the CPU", "will fall back")


def interpreter_facts():
    """Facts about this interpreter that need no third-party import."""
    facts = {
        "version": list(sys.version_info[:3]),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "executable_realpath": os.path.realpath(sys.executable) if sys.executable else None,
        "prefix": sys.prefix,
        "base_prefix": getattr(sys, "base_prefix", sys.prefix),
        "machine": platform.machine(),
        "sys_platform": sys.platform,
        "mac_ver": platform.mac_ver()[0] if sys.platform == "darwin" else None,
        "pointer_bits": struct.calcsize("P") * 8,
        "proc_translated": proc_translated() if sys.platform == "darwin" else None,
        "pyvenv_cfg": read_pyvenv_cfg(sys.prefix),
        "conda_meta": os.path.isdir(os.path.join(sys.prefix, "conda-meta")),
        "conda_subdir": conda_subdir(sys.prefix),
        "externally_managed": externally_managed(),
        # A free-threaded CPython (3.13t and later) is built with Py_GIL_DISABLED (PEP 703); older ones lack the variable.
        "free_threaded": bool(sysconfig.get_config_var("Py_GIL_DISABLED")),
    }
    facts.update(system_facts())
    return facts


def system_facts():
    """The OS, libc and CPU model as this interpreter sees them (collect_env's system section)."""
    libc, libc_version = platform.libc_ver() if sys.platform.startswith("linux") else ("", "")
    return {"platform": platform.platform(), "libc": ("%s %s" % (libc, libc_version)).strip() or None,
            "cpu_model": cpu_model()}


def cpu_model():
    """The CPU's model name from /proc/cpuinfo on Linux; None elsewhere (the doctor reads sysctl on macOS)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, sep, value = line.partition(":")
                if sep and key.strip() in ("model name", "Model", "Hardware"):
                    return value.strip() or None
    except OSError:
        return None
    return None


def proc_translated():
    """1 when Rosetta translates this process, 0 when native, None when the key is missing (Intel, old macOS).

    Source: Apple, "About the Rosetta Translation Environment": sysctlbyname("sysctl.proc_translated").
    """
    try:
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        value = ctypes.c_int(0)
        size = ctypes.c_size_t(ctypes.sizeof(value))
        if libc.sysctlbyname(b"sysctl.proc_translated", ctypes.byref(value), ctypes.byref(size), None, 0) != 0:
            return None
        return int(value.value)
    except Exception:
        return None


def read_pyvenv_cfg(prefix):
    """The key/value pairs of PREFIX/pyvenv.cfg (uv writes `uv = x.y.z` there), or None outside a venv."""
    path = os.path.join(prefix, "pyvenv.cfg")
    if not os.path.isfile(path):
        return None
    pairs = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            key, sep, value = line.partition("=")
            if sep:
                pairs[key.strip()] = value.strip()
    return pairs


def conda_subdir(prefix):
    """The conda platform (`osx-64`, `osx-arm64`, ...) this environment's python package was built for, or None.

    conda records each installed package in PREFIX/conda-meta/NAME-VERSION-BUILD.json with its `subdir`.
    """
    import glob
    import json

    for path in sorted(glob.glob(os.path.join(prefix, "conda-meta", "python-[0-9]*.json"))):
        try:
            with open(path, encoding="utf-8") as handle:
                return json.load(handle).get("subdir")
        except (OSError, ValueError):
            return None
    return None


def externally_managed():
    """True when the base interpreter carries PEP 668's EXTERNALLY-MANAGED marker."""
    import sysconfig

    stdlib = sysconfig.get_paths().get("stdlib")
    return bool(stdlib) and os.path.isfile(os.path.join(stdlib, "EXTERNALLY-MANAGED"))


def distribution_version(name):
    """The installed version of distribution NAME without importing it, or None."""
    try:
        from importlib import metadata  # novermin (guarded: Python 3.7 scans dist-info below)
    except ImportError:
        metadata = None
    if metadata is not None:
        try:
            return metadata.version(name)
        except Exception:
            return None
    prefix = name.lower().replace("-", "_") + "-"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for item in names:
            if item.lower().startswith(prefix) and item.endswith((".dist-info", ".egg-info")):
                return item[len(prefix):].rsplit(".", 1)[0]
    return None


def shadowing_torch():
    """Local `torch` files that `python -c 'import torch'` run in the working directory (sys.path[0] is '' there)
    or with this PYTHONPATH imports before the installed package: [{"path", "where"}], the winner first."""
    entries = [("working directory", os.getcwd())]
    entries += [("PYTHONPATH", os.path.abspath(entry or "."))
                for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    found = []
    for where, folder in entries:
        path = local_torch(folder)
        if path and path not in [item["path"] for item in found]:
            found.append({"path": path, "where": where})
    return found


def local_torch(folder):
    """The `torch` package or module directly in FOLDER when no installed torch distribution owns it, else None."""
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    # An installed torch (site-packages, or an editable source checkout) has its metadata beside the package.
    if any(name.lower().startswith("torch-") and name.endswith((".dist-info", ".egg-info")) for name in names):
        return None
    if "torch.egg-info" in names:
        return None
    if os.path.isfile(os.path.join(folder, "torch", "__init__.py")):
        return os.path.join(folder, "torch")
    for name in sorted(names):
        if name == "torch.py" or (name.startswith("torch.") and name.endswith((".so", ".pyd"))):
            return os.path.join(folder, name)
    return None


def error_facts(exc):
    """The type, message and last traceback lines of EXC."""
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return {"type": type(exc).__name__, "message": str(exc), "traceback": "".join(lines[-6:])}


def warning_texts(caught):
    """The messages of recorded warnings, deduplicated, in order."""
    seen = []
    for item in caught:
        text = "%s: %s" % (item.category.__name__, item.message)
        if text not in seen:
            seen.append(text)
    return seen


def call_or_none(obj, name, *args):
    """OBJ.NAME(*args), or None when that API does not exist in this torch or raises."""
    fn = getattr(obj, name, None)
    if fn is None:
        return None
    try:
        return fn(*args)
    except Exception:
        return None


def torch_facts():
    """Import torch and read its build and availability facts; an import error becomes a fact."""
    import importlib.util

    facts = {
        "installed": importlib.util.find_spec("torch") is not None,
        "packages": {name: distribution_version(name) for name in ("torch", "torchvision", "torchaudio", "numpy")},
    }
    facts["shadows"] = shadowing_torch()
    facts["packages"].update((name, distribution_version(name)) for name in RELATED_PACKAGES)
    if not facts["installed"]:
        return facts, None
    if any(shadow["where"] == "PYTHONPATH" for shadow in facts["shadows"]):
        return facts, None  # `import torch` here would run that file, not torch
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            import torch
        except BaseException as exc:  # a broken torch raises anything, SystemExit included
            facts["import_seconds"] = time.perf_counter() - started
            facts["import_error"] = error_facts(exc)
            facts["warnings"] = warning_texts(caught)
            return facts, None
        facts["import_seconds"] = time.perf_counter() - started
        facts["version"] = getattr(torch, "__version__", None)
        facts["file"] = getattr(torch, "__file__", None)
        facts["num_threads"] = torch.get_num_threads()
        mps = getattr(torch.backends, "mps", None)
        facts["mps"] = {
            "built": bool(call_or_none(mps, "is_built")) if mps is not None else False,
            "available": bool(call_or_none(mps, "is_available")) if mps is not None else False,
        }
        if facts["mps"]["available"]:
            facts["mps"]["name"] = call_or_none(mps, "get_name")
            facts["mps"]["core_count"] = call_or_none(mps, "get_core_count")
            facts["mps"]["recommended_max_memory"] = call_or_none(getattr(torch, "mps", None), "recommended_max_memory")
        facts["cuda"] = cuda_facts(torch)
        facts["build"] = build_facts(torch)
        facts["warnings"] = warning_texts(caught)
    return facts, torch


# Packages a bug report about training usually needs, read from their metadata without importing them.
RELATED_PACKAGES = ("transformers", "accelerate", "lightning", "pytorch-lightning")
# Keys of torch.__config__.show()'s "Build settings" line worth a bug report.
BUILD_SETTINGS = ("BLAS_INFO", "LAPACK_INFO", "USE_OPENMP", "USE_MKL", "USE_MKLDNN", "USE_CUDA", "USE_CUDNN",
                  "CUDA_VERSION", "CUDNN_VERSION", "USE_ROCM", "USE_MPS", "USE_NCCL", "TORCH_VERSION")


def build_facts(torch):
    """A digest of torch.__config__.show() (compiler, BLAS, OpenMP, CPU capability, CUDA and cuDNN), as strings."""
    try:
        text = torch.__config__.show()
    except Exception:
        return {}
    digest = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("- "):
            line = line[2:].strip()
        if line.startswith("Build settings:"):
            for item in line[len("Build settings:"):].split(", "):
                key, sep, value = item.strip().partition("=")
                if sep and key in BUILD_SETTINGS and value.strip():
                    digest[key] = value.strip()
        elif line.startswith(("GCC ", "clang ", "Apple clang ", "MSVC ")):
            digest["compiler"] = line
        elif line.startswith("OpenMP "):
            digest["openmp"] = line
        elif "Math Kernel Library" in line:
            digest["mkl"] = line
        elif line.startswith("CPU capability usage:"):
            digest["cpu_capability"] = line.split(":", 1)[1].strip()
        elif line.startswith("CUDA Runtime "):
            digest["cuda_runtime"] = line[len("CUDA Runtime "):].strip()
        elif line.startswith("CuDNN "):
            digest["cudnn"] = line[len("CuDNN "):].strip()
    hip = getattr(torch.version, "hip", None)
    if hip:
        digest["hip"] = str(hip)
    return digest


def cuda_facts(torch):
    """CUDA build and device facts; all None or empty on a CPU or macOS build."""
    cuda = torch.cuda
    facts = {"version": getattr(torch.version, "cuda", None), "available": bool(call_or_none(cuda, "is_available"))}
    facts["arch_list"] = call_or_none(cuda, "get_arch_list") or []
    devices = []
    if facts["available"]:
        for index in range(cuda.device_count()):
            props = cuda.get_device_properties(index)
            devices.append({"index": index, "name": props.name, "capability": [props.major, props.minor],
                            "total_memory": props.total_memory})
    facts["devices"] = devices
    return facts


def synchronizer(torch, device):
    """The function that waits for all queued work on DEVICE (reference/performance.md section 5); a no-op on the CPU."""
    if device == "cuda":
        return torch.cuda.synchronize
    if device != "mps":
        return lambda: None
    mps = getattr(torch, "mps", None)
    if mps is not None and hasattr(mps, "synchronize"):
        return mps.synchronize
    # torch 1.12 and 1.13 have no torch.mps (it arrived in 2.0); a blocking copy to the CPU waits for the queued
    # work of the MPS stream first (aten/src/ATen/native/mps/operations/Copy.mm: copy_from_mps_ ends in copy_and_sync).
    return lambda: torch.zeros(1, device="mps").to("cpu")


def synchronize(torch, device):
    """Wait for all queued work on DEVICE before a clock is read."""
    synchronizer(torch, device)()


def resolve_device(requested, torch_data):
    """AUTO is mps on macOS, cuda where torch sees a CUDA GPU, else cpu (the doctor's report.resolve_device)."""
    if "," in requested:
        choices = requested.split(",")
        return next((d for d in choices if device_usable(torch_data, d)), choices[0])
    if requested != "auto":
        return requested
    if sys.platform == "darwin":
        return "mps"
    if torch_data.get("cuda", {}).get("available"):
        return "cuda"
    return "cpu"


def device_usable(torch_data, device):
    """Whether the torch facts say DEVICE can be tried at all."""
    if device == "cpu":
        return True
    if device == "mps":
        return torch_data.get("mps", {}).get("available", False)
    if device == "cuda":
        return torch_data.get("cuda", {}).get("available", False)
    return False


def compare(name, got, reference):
    """Max absolute error of GOT against REFERENCE (both moved to CPU float64), with the reference scale."""
    got = got.detach().to("cpu").double()
    reference = reference.detach().to("cpu").double()
    finite = bool(got.isfinite().all())
    err = float((got - reference).abs().max()) if finite else None
    return {"name": name, "finite": finite, "max_abs_err": err, "max_abs_ref": float(reference.abs().max())}


def parity_facts(torch, device):
    """Known silent-correctness traps on DEVICE against a CPU float64 reference (mps-facts.md P12), and the ops
    that fell back to the CPU (torch warns once per process, so a fallback first met here is only seen here)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        facts = parity_ops(torch, device)
    facts["fallback_warnings"] = [t for t in warning_texts(caught) if any(m in t for m in FALLBACK_MARKERS)]
    return facts


def parity_ops(torch, device):
    """The parity operations on DEVICE, each compared with its reference."""
    generator = torch.Generator().manual_seed(1234)
    ops = []
    # matmul above batch 8 diverged from the CPU on MPS (pytorch/pytorch#109457).
    x = torch.randn(16, 512, generator=generator)
    w = torch.randn(512, 1024, generator=generator)
    ops.append(compare("matmul-batch16", x.to(device) @ w.to(device), x.double() @ w.double()))
    # addcdiv_ on a non-contiguous tensor gave wrong results on MPS (pytorch/pytorch#118115).
    base = torch.randn(64, 32, generator=generator)
    num = torch.randn(32, 64, generator=generator)
    den = torch.rand(32, 64, generator=generator) + 0.5
    on_device = base.to(device, copy=True).t()
    on_device.addcdiv_(num.to(device), den.to(device), value=0.5)
    reference = base.double().t() + 0.5 * num.double() / den.double()
    ops.append(compare("addcdiv_-noncontiguous", on_device, reference))
    synchronize(torch, device)
    return {"device": device, "ops": ops}


def smoke_facts(torch, device, options, progress=lambda data: None):
    """Train the MNIST network for a few steps on DEVICE; report parity with a reference step, losses and timing.
    PROGRESS(data) hears which step runs, always outside the timed code."""
    import mpsd_idx
    import mpsd_net

    steps = int(options.get("smoke_steps", 6))
    batch = int(options.get("smoke_batch", 64))
    images, labels = mpsd_idx.load_split(options["data_dir"], train=True)
    x_all, y_all = mpsd_net.to_tensors(images, labels, count=batch * steps + 256)
    x_eval, y_eval = x_all[:256], y_all[:256]
    facts = {"device": device, "steps": steps, "batch": batch,
             "fallback_env": os.environ.get("PYTORCH_ENABLE_MPS_FALLBACK")}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        progress({"device": device, "phase": "reference-step"})
        facts["parity"] = step_parity(torch, mpsd_net, device, x_all[:batch], y_all[:batch])
        model = mpsd_net.make_model(device)
        optimizer = mpsd_net.make_optimizer(model, light=True)
        facts["loss_before"] = eval_loss(torch, model, x_eval.to(device), y_eval.to(device))
        model.train()
        batches = [(x_all[256 + i * batch:256 + (i + 1) * batch].to(device),
                    y_all[256 + i * batch:256 + (i + 1) * batch].to(device)) for i in range(steps)]
        progress({"device": device, "phase": "steps", "step": 1, "last": 1, "steps": steps})
        synchronize(torch, device)
        started = time.perf_counter()
        mpsd_net.train_step(model, optimizer, *batches[0])
        synchronize(torch, device)
        facts["cold_step_ms"] = (time.perf_counter() - started) * 1e3
        if steps > 1:
            progress({"device": device, "phase": "steps", "step": 2, "last": steps, "steps": steps})
        started = time.perf_counter()
        for bx, by in batches[1:]:
            mpsd_net.train_step(model, optimizer, bx, by)
        synchronize(torch, device)
        facts["warm_step_ms"] = (time.perf_counter() - started) * 1e3 / max(1, steps - 1)
        facts["loss_after"] = eval_loss(torch, model, x_eval.to(device), y_eval.to(device))
    texts = warning_texts(caught)
    facts["warnings"] = texts
    facts["fallback_warnings"] = [t for t in texts if any(m in t for m in FALLBACK_MARKERS)]
    return facts


def eval_loss(torch, model, x, y):
    """The mean NLL loss of MODEL on (x, y) with dropout off."""
    import torch.nn.functional as F

    model.eval()
    with torch.no_grad():
        value = float(F.nll_loss(model(x), y))
    return value if value == value else None


def step_parity(torch, net, device, x, y):
    """Loss and gradients of one step (dropout off, same weights and batch) on DEVICE against a reference.

    The reference is the CPU in float32 for an accelerator, and the CPU in float64 when DEVICE is the CPU.
    """
    reference_dtype = torch.float64 if device == "cpu" else torch.float32
    results = []
    # CUDA runs float32 convolutions in TF32 by default (10-bit mantissa); measured on an H200 that alone put
    # conv gradients 1-2% away from the CPU. The parity step compares full float32 on both sides.
    saved = tf32_off(torch) if device == "cuda" else None
    try:
        for where, dtype in ((device, torch.float32), ("cpu", reference_dtype)):
            model = net.make_model("cpu").to(dtype).to(where)
            model.eval()
            loss = torch.nn.functional.nll_loss(model(x.to(dtype).to(where)), y.to(where))
            loss.backward()
            results.append((loss.detach(), {name: p.grad.detach() for name, p in model.named_parameters()}))
    finally:
        if saved is not None:
            torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved
    (loss_dev, grads_dev), (loss_ref, grads_ref) = results
    return {
        "reference": "cpu-float64" if device == "cpu" else "cpu-float32",
        "loss": compare("loss", loss_dev, loss_ref),
        "grads": [compare(name, grads_dev[name], grads_ref[name]) for name in grads_ref],
    }


def tf32_off(torch):
    """Turn TF32 off for convolutions and matmuls; return the previous settings."""
    saved = (torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    return saved


def first_stages(emit):
    """The interpreter and torch stages that every mode starts with, emitted; (torch's facts, torch or None)."""
    emit("begin", "interpreter")
    emit("result", "interpreter", interpreter_facts())
    emit("begin", "torch")
    torch_data, torch = torch_facts()
    emit("result", "torch", torch_data)
    return torch_data, torch


def run(options, emit):
    """Run the stages that OPTIONS ask for, emitting one framed result per stage."""
    torch_data, torch = first_stages(emit)
    if torch is None:
        return
    device = resolve_device(options.get("device", "auto"), torch_data)
    if not device_usable(torch_data, device):
        return
    for stage, wanted, collect in (
        ("parity", True, lambda: parity_facts(torch, device)),
        ("smoke", options.get("smoke", False),
         lambda: smoke_facts(torch, device, options, lambda data: emit("progress", "smoke", data))),
    ):
        if not wanted:
            continue
        emit("begin", stage, {"device": device})
        try:
            emit("result", stage, collect())
        except Exception as exc:
            emit("result", stage, {"device": device, "error": error_facts(exc)})
