"""Writes the recorded machines under tests/machines/<name>/machine.json.

Each machine is what the probes would have recorded on that kind of machine: the raw command output of
the host probe (sw_vers, sysctl, nvidia-smi), the environment, and the framed lines of the child probe.
Every value comes from reference/mps-facts.md (cited per machine) or, for this Linux box and the H200,
from a real run. Run `python tests/machines/_build.py` after changing a machine; the tests replay the files. Each
machine's `expect` states its verdict, root cause, warnings and the layers it skips before the root cause; its reports and fix plans are golden files
(tests/golden/, regenerated as tests/goldens.py says).
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
GIB = 1024 ** 3


def ok(stdout):
    return {"returncode": 0, "stdout": stdout + "\n", "stderr": ""}


def missing(key):
    # sysctl on a key the kernel does not have: "unknown oid" on stderr, exit status 1.
    return {"returncode": 1, "stdout": "", "stderr": "sysctl: unknown oid '%s'\n" % key}


def mac_host(version, build, arm64=True, vmm=False, brand="Apple M2 Pro", memsize=32 * GIB, env=None, brew=("/opt/homebrew",),
             uname_machine="arm64", kernel="24.1.0", tools=None):
    commands = {
        "sw_vers": ok("ProductName:\t\tmacOS\nProductVersion:\t\t%s\nBuildVersion:\t\t%s" % (version, build)),
        "sysctl -n hw.memsize": ok(str(memsize)),
        "sysctl -n hw.optional.arm64": ok("1") if arm64 else missing("hw.optional.arm64"),
        "sysctl -n kern.hv_vmm_present": ok("1" if vmm else "0"),
        "sysctl -n machdep.cpu.brand_string": ok(brand),
    }
    base_env = {"HOME": "/Users/alex", "USER": "alex", "SHELL": "/bin/zsh", "TERM_PROGRAM": "Apple_Terminal"}
    base_env.update(env or {})
    which = {"brew": prefix + "/bin/brew" for prefix in brew[:1]}
    which.update(tools or {})
    return {"system": "Darwin", "uname": [kernel, uname_machine], "env": base_env, "brew": list(brew),
            "memory_bytes": memsize, "distro": None, "which": which, "commands": commands}


def interp(version=(3, 12, 7), machine="arm64", python="/Users/alex/proj/.venv/bin/python", mac_ver="15.1",
           translated=0, venv=True, real="/opt/homebrew/Cellar/python@3.12/3.12.7/Frameworks/Python.framework/Versions/3.12/bin/python3.12",
           base="/opt/homebrew/opt/python@3.12/Frameworks/Python.framework/Versions/3.12", conda_subdir=None, uv=False):
    prefix = os.path.dirname(os.path.dirname(python))
    cfg = None
    if venv:
        cfg = {"home": os.path.dirname(real), "include-system-site-packages": "false",
               "version": ".".join(map(str, version))}
        if uv:
            cfg["uv"] = "0.9.7"
    return {"version": list(version), "implementation": "CPython", "executable": python, "executable_realpath": real,
            "prefix": prefix, "base_prefix": base if venv else prefix, "machine": machine, "sys_platform": "darwin",
            "mac_ver": mac_ver, "pointer_bits": 64, "proc_translated": translated, "pyvenv_cfg": cfg,
            "conda_meta": conda_subdir is not None, "conda_subdir": conda_subdir, "externally_managed": False,
            "free_threaded": False}


def torch_stage(version="2.13.0", built=True, available=True, name="Apple M2 Pro", cores=19, vision=None, numpy="2.3.4",
                python="3.12", site="/Users/alex/proj/.venv/lib/python3.12/site-packages", rec=22 * GIB, warnings=(),
                audio=None):
    mps = {"built": built, "available": available}
    if available:
        mps.update(name=name, core_count=cores, recommended_max_memory=rec)
    return {"installed": True, "packages": {"torch": version, "torchvision": vision, "torchaudio": audio, "numpy": numpy},
            "import_seconds": 1.21, "version": version, "file": site + "/torch/__init__.py", "num_threads": 10,
            "mps": mps, "cuda": {"version": None, "available": False, "arch_list": [], "devices": []},
            "warnings": list(warnings)}


def parity(device="mps", wrong=False):
    return {"device": device, "ops": [
        {"name": "matmul-batch16", "finite": True, "max_abs_err": 3.1 if wrong else 2.9e-05, "max_abs_ref": 93.18682101943922},
        {"name": "addcdiv_-noncontiguous", "finite": True, "max_abs_err": 1.8e-07, "max_abs_ref": 3.9643663034605714}],
        "fallback_warnings": []}


GRADS = [("conv1.weight", 0.0074), ("conv1.bias", 0.0056), ("conv2.weight", 0.0062), ("conv2.bias", 0.0081),
         ("fc1.weight", 0.0127), ("fc1.bias", 0.0102), ("fc2.weight", 0.0935), ("fc2.bias", 0.0711)]


def smoke(device="mps", cold=412.0, warm=6.8, before=2.3079, after=1.7712, reference="cpu-float32", grad_err=3e-8, fallback=()):
    return {"device": device, "steps": 6, "batch": 64, "fallback_env": None,
            "parity": {"reference": reference, "loss": {"name": "loss", "finite": True, "max_abs_err": 1.2e-7, "max_abs_ref": 2.319},
                       "grads": [{"name": n, "finite": True, "max_abs_err": grad_err, "max_abs_ref": r} for n, r in GRADS]},
            "loss_before": before, "cold_step_ms": cold, "warm_step_ms": warm, "loss_after": after,
            "warnings": list(fallback), "fallback_warnings": list(fallback)}


def frames(interpreter=None, torch=None, parity_data=None, smoke_data=None, crash_in=None):
    out = []
    for stage, data in (("interpreter", interpreter), ("torch", torch), ("parity", parity_data), ("smoke", smoke_data)):
        if stage == crash_in:
            out.append({"event": "begin", "stage": stage, "data": None})
            break
        if data is None:
            continue
        out.append({"event": "begin", "stage": stage, "data": None})
        out.append({"event": "result", "stage": stage, "data": data})
    return out


def target(python, frame_list, returncode=0, stderr="", timed_out=False, device="auto", smoke_on=True, chosen_because=None):
    recorded = {"python": python, "device": device, "smoke": smoke_on, "frames": frame_list, "returncode": returncode,
                "stderr": stderr, "timed_out": timed_out}
    if chosen_because is not None:  # why `check` without --python chose this interpreter (probe.default_target.default_python)
        recorded["chosen_because"] = chosen_because
    return recorded


MACHINES = {}


def machine(name, about, sources, host, tgt, expect, bench=None):
    MACHINES[name] = {"about": about, "sources": sources, "host": host, "target": tgt, "expect": expect}
    if bench is not None:  # a bench run (`mps-doctor bench`): the child's options and its frames after the target's
        MACHINES[name]["bench"] = bench


PY = "/Users/alex/proj/.venv/bin/python"
PIPE_PY = "/Users/alex/Thesis | ML/.venv/bin/python"

machine(
    "m2-native-torch213", "Apple Silicon (M2 Pro), macOS 15.1, native arm64 Python 3.12 venv, torch 2.13.0 with MPS working.",
    ["mps-facts.md 1.1 (is_built/is_available), 1.4 (14.0 minimum from 2.9), 3 (sysctl keys)"],
    mac_host("15.1", "24B83"),
    target(PY, frames(interp(), torch_stage(vision="0.28.0"), parity(), smoke())),
    {"device": "mps", "state": "ready", "root_cause": None, "exit_code": 0,
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m1-rosetta-x86-python", "M1 Mac, x86_64 python.org Python 3.11 run by Rosetta, torch 2.2.2 (the last x86_64 wheel, no MPS).",
    ["mps-facts.md P1 (Rosetta: proc_translated=1, x86 wheels stop at 2.2.2, is_built False)", "1.5"],
    mac_host("14.6.1", "23G93", brand="Apple M1", memsize=16 * GIB, uname_machine="x86_64", brew=()),
    target("/Users/alex/proj/.venv/bin/python", frames(
        interp(version=(3, 11, 9), machine="x86_64", translated=1, mac_ver="14.6.1",
               real="/Library/Frameworks/Python.framework/Versions/3.11/bin/python3.11",
               base="/Library/Frameworks/Python.framework/Versions/3.11"),
        torch_stage(version="2.2.2", built=False, available=False, python="3.11",
                    site="/Users/alex/proj/.venv/lib/python3.11/site-packages")),
        chosen_because="the .venv in /Users/alex/proj (no environment is active)"),
    {"device": "mps", "state": "not-ready", "root_cause": "python.rosetta", "exit_code": 1,
     "remedy_command": "arch -arm64 /Library/Frameworks/Python.framework/Versions/3.11/bin/python3.11 -m venv",
     "summary_contains": "Python runs under Rosetta (x86_64) on an arm64 Mac",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "intel-mac-torch222", "Intel Mac (Core i7), macOS 13.6.9, Python 3.11, torch 2.2.2 (the last Intel-Mac wheel).",
    ["mps-facts.md 1.5 and P16 (last x86_64 wheels 2.2.2; no MPS on Intel GPUs in current wheels)",
     "mps-facts.md 3 (hw.optional.arm64 missing on Intel)"],
    mac_host("13.6.9", "22G830", arm64=False, brand="Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz", memsize=16 * GIB,
             uname_machine="x86_64", brew=("/usr/local",), kernel="22.6.0"),
    target(PY, frames(
        interp(version=(3, 11, 9), machine="x86_64", translated=None, mac_ver="13.6.9",
               real="/usr/local/Cellar/python@3.11/3.11.9/Frameworks/Python.framework/Versions/3.11/bin/python3.11",
               base="/usr/local/opt/python@3.11/Frameworks/Python.framework/Versions/3.11"),
        torch_stage(version="2.2.2", built=False, available=False, vision="0.17.2", python="3.11"))),
    {"device": "mps", "state": "not-ready", "root_cause": "hardware.apple-silicon", "exit_code": 1,
     "remedy_command": "torch==2.2.2 torchvision==0.17.2",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m1-macos13-torch29", "M1 on macOS 13.6.7 with torch 2.9.1: torch imports but MPS needs macOS 14 from 2.9.",
    ["mps-facts.md 1.4 (2.9+: 14.0, PR #162921), 1.6 (torch imports on macOS 11+), P3 (pin torch<2.9 on 13.x)"],
    mac_host("13.6.7", "22G720", brand="Apple M1", memsize=8 * GIB, kernel="22.6.0"),
    target(PY, frames(interp(mac_ver="13.6.7"), torch_stage(version="2.9.1", built=True, available=False, vision="0.24.1"))),
    {"device": "mps", "state": "not-ready", "root_cause": "macos.version", "exit_code": 1,
     "remedy_command": "'torch==2.8.*' 'torchvision==0.23.*'",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m1-macos126-torch24", "M1 on macOS 12.6 with torch 2.4.1: MPS needs 12.3 up to torch 2.4, so MPS runs; bfloat16, "
    "complex and FFT on MPS need macOS 14 (a warning).",
    ["mps-facts.md 1.4 (1.12-2.4: 12.3)"],
    mac_host("12.6", "21G115", brand="Apple M1", memsize=16 * GIB, kernel="21.6.0"),
    target(PY, frames(interp(version=(3, 10, 14), mac_ver="12.6"),
                      torch_stage(version="2.4.1", vision="0.19.1", name=None, cores=None, rec=None),
                      parity(), smoke(cold=780.0, warm=14.2))),
    {"device": "mps", "state": "ready", "root_cause": None, "exit_code": 0, "strict_exit_code": 1,
     "warnings": ["macos.mps-features"],
     "skipped_layers": []},
)
machine(
    "m2-python-reports-1016", "M2 on macOS 14.5; an old Python build reports platform.mac_ver() 10.16 while sw_vers says 14.5.",
    ["mps-facts.md 3 ('10.16 / 16.0 pitfall', cpython#135675, packaging tags.py SYSTEM_VERSION_COMPAT)"],
    mac_host("14.5", "23F79", brand="Apple M2", memsize=16 * GIB, kernel="23.5.0"),
    target(PY, frames(interp(version=(3, 10, 4), mac_ver="10.16"), torch_stage(version="2.13.0", name="Apple M2", cores=10),
                      parity(), smoke())),
    {"device": "mps", "state": "ready", "root_cause": None, "exit_code": 0, "strict_exit_code": 1,
     "warnings": ["macos.python-view"],
     "skipped_layers": []},
)
machine(
    "m3-torch-missing", "M3 on macOS 15.2, a fresh uv venv with Python 3.12 and no torch.",
    ["mps-facts.md 8.1 (pip install torch torchvision from PyPI is the MPS build)"],
    mac_host("15.2", "24C101", brand="Apple M3", memsize=24 * GIB),
    target(PY, frames(interp(uv=True), {"installed": False, "packages": {"torch": None, "torchvision": None,
                                                                         "torchaudio": None, "numpy": None}})),
    {"device": "mps", "state": "not-ready", "root_cause": "torch.import", "exit_code": 1,
     "remedy_command": "uv pip install --python /Users/alex/proj/.venv/bin/python 'torch==2.15.*' 'torchvision==0.29.*'",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m2-torchaudio-left-behind", "M2 Pro on macOS 15.1: `pip install -U torch torchvision` took a torch 2.10 venv to torch 2.13.0 "
    "and torchvision 0.28.0 and left torchaudio 2.10.0, which pins torch==2.10.0; MPS itself works.",
    ["mps-facts.md 2.3 (torchaudio pairs by minor up to 2.10; 2.11 serves later torch)",
     "pip's resolver only reports such a pair ('torchaudio 2.3.1 requires torch==2.3.1, but you have torch 2.0.1 which is "
     "incompatible', MyNiuuu/MOFA-Video#20) and installs anyway"],
    mac_host("15.1", "24B83"),
    target(PY, frames(interp(), torch_stage(vision="0.28.0", audio="2.10.0"), parity(), smoke())),
    {"device": "mps", "state": "ready", "root_cause": None, "exit_code": 0, "strict_exit_code": 1,
     "warnings": ["torch.companions"],
     "skipped_layers": []},
)
machine(
    "m3-venv-in-folder-with-pipe", "M3 on macOS 15.2, a venv without torch in a project folder named 'Thesis | ML' (macOS "
    "file names may hold spaces and |): every command must quote the path, every Markdown cell escape the |.",
    ["mps-facts.md 8.1 (pip install torch torchvision from PyPI is the MPS build)",
     "POSIX path names may hold any byte but / and NUL (POSIX.1-2017 Base Definitions, definition of Filename)"],
    mac_host("15.2", "24C101", brand="Apple M3", memsize=24 * GIB),
    target(PIPE_PY, frames(interp(python=PIPE_PY), {"installed": False, "packages": {
        "torch": None, "torchvision": None, "torchaudio": None, "numpy": None}})),
    {"device": "mps", "state": "not-ready", "root_cause": "torch.import", "exit_code": 1,
     "remedy_command": "'/Users/alex/Thesis | ML/.venv/bin/python' -m pip install 'torch==2.15.*' 'torchvision==0.29.*'",
     "summary_contains": "torch is not installed in /Users/alex/Thesis | ML/.venv/bin/python",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m2-torch-import-error", "M2 on macOS 15.1; torch 2.13.0 is installed but its dylib is missing (a half-finished install).",
    ["mps-facts.md 3/4 (import failure must be separated from MPS availability)"],
    mac_host("15.1", "24B83"),
    target(PY, frames(interp(), {"installed": True, "packages": {"torch": "2.13.0", "torchvision": None, "torchaudio": None, "numpy": None},
                                 "import_seconds": 0.3, "import_error": {
                                     "type": "ImportError",
                                     "message": "dlopen(/Users/alex/proj/.venv/lib/python3.12/site-packages/torch/_C.cpython-312-darwin.so, 0x0002): "
                                                "Library not loaded: @rpath/libtorch_cpu.dylib",
                                     "traceback": "Traceback (most recent call last):\n  File \"<probe>\", line 1\nImportError: dlopen(...)"},
                                 "warnings": []})),
    {"device": "mps", "state": "not-ready", "root_cause": "torch.import", "exit_code": 1,
     "remedy_command": "--force-reinstall 'torch==2.13.*'",
     "warnings": ["python.numpy"],
     "skipped_layers": []},
)
machine(
    "m1-torch-no-mps", "M1 on macOS 14.7 with a source build of torch 2.13 made without MPS (USE_MPS=0).",
    ["mps-facts.md 1.1 (is_built = torch._C._has_mps, a compile-time flag)"],
    mac_host("14.7", "23H124", brand="Apple M1", memsize=16 * GIB, kernel="23.6.0"),
    target(PY, frames(interp(mac_ver="14.7"), torch_stage(version="2.13.0a0+git4c1d5e2", built=False, available=False))),
    {"device": "mps", "state": "not-ready", "root_cause": "torch.mps-built", "exit_code": 1,
     "remedy_command": "--force-reinstall",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m1-hosted-runner-vm", "GitHub-hosted macos-14 arm64 runner (a VM): MPS is built but not available.",
    ["mps-facts.md 3 (kern.hv_vmm_present), P4 and P11 (GitHub docs: MPS not supported in hosted runners)"],
    mac_host("14.7.1", "23H222", vmm=True, brand="Apple M1 (Virtual)", memsize=7 * GIB, kernel="23.6.0",
             env={"HOME": "/Users/runner", "USER": "runner", "CI": "true", "GITHUB_ACTIONS": "true",
                  "RUNNER_ENVIRONMENT": "github-hosted", "ImageOS": "macos14"}),
    target("/Users/runner/work/proj/proj/.venv/bin/python", frames(
        interp(python="/Users/runner/work/proj/proj/.venv/bin/python", mac_ver="14.7.1"),
        torch_stage(version="2.13.0", built=True, available=False, site="/Users/runner/work/proj/proj/.venv/lib/python3.12/site-packages"),
        parity("cpu"), smoke("cpu", cold=95.0, warm=41.0, reference="cpu-float64")), device="cpu"),
    {"device": "cpu", "state": "ready", "root_cause": None, "exit_code": 0,
     "warnings": [],
     "skipped_layers": ["os.macos", "hardware.apple-silicon", "macos.version", "torch.mps-built", "torch.mps-available"]},
)
machine(
    "m1-hosted-runner-wrong-results", "GitHub-hosted macos-26 runner: MPS reports available but returns wrong numbers.",
    ["mps-facts.md P11 (actions/runner-images#14380 silently different outputs; pytorch#125197)", "P12"],
    mac_host("26.0.1", "25A362", vmm=True, brand="Apple M1 (Virtual)", memsize=7 * GIB, kernel="25.0.0",
             env={"HOME": "/Users/runner", "USER": "runner", "CI": "true", "GITHUB_ACTIONS": "true",
                  "RUNNER_ENVIRONMENT": "github-hosted", "ImageOS": "macos26"}),
    target("/Users/runner/work/proj/proj/.venv/bin/python", frames(
        interp(python="/Users/runner/work/proj/proj/.venv/bin/python", mac_ver="26.0.1"),
        torch_stage(version="2.13.0", name="Apple Paravirtual device", cores=None), parity(wrong=True), smoke()),
           device="mps"),
    {"device": "mps", "state": "not-ready", "root_cause": "device.parity", "exit_code": 1, "requested": "mps",
     "warnings": ["torch.mps-available", "host.memory", "ci.hosted-runner"],
     "skipped_layers": []},
)
machine(
    "m1-conda-osx64", "M1 on macOS 14.4 with an Intel (osx-64) conda environment: Python 3.11 x86_64 under Rosetta, torch 2.2.2.",
    ["mps-facts.md P2 (conda platform osx-64 on Apple Silicon)", "3 (conda-meta subdir, CONDA_SUBDIR)"],
    mac_host("14.4.1", "23E224", brand="Apple M1 Pro", memsize=16 * GIB, uname_machine="x86_64", brew=(), kernel="23.4.0",
             env={"CONDA_PREFIX": "/Users/alex/miniconda3/envs/ml", "CONDA_DEFAULT_ENV": "ml"}),
    target("/Users/alex/miniconda3/envs/ml/bin/python", frames(
        interp(version=(3, 11, 10), machine="x86_64", translated=1, python="/Users/alex/miniconda3/envs/ml/bin/python",
               mac_ver="14.4.1", venv=False, real="/Users/alex/miniconda3/envs/ml/bin/python3.11", conda_subdir="osx-64"),
        torch_stage(version="2.2.2", built=False, available=False, python="3.11",
                    site="/Users/alex/miniconda3/envs/ml/lib/python3.11/site-packages"))),
    {"device": "mps", "state": "not-ready", "root_cause": "python.rosetta", "exit_code": 1,
     "remedy_command": "CONDA_SUBDIR=osx-arm64 conda create",
     "warnings": ["conda.platform"],
     "skipped_layers": []},
)
machine(
    "m4-torch-import-sigill", "M4 on macOS 15.3; importing torch dies with Illegal instruction (a wheel built for another CPU).",
    ["mps-facts.md 3 (Rosetta/arch mismatches); DESIGN.md (a crash becomes a fact)"],
    mac_host("15.3", "24D60", brand="Apple M4", memsize=16 * GIB),
    target(PY, frames(interp(mac_ver="15.3"), crash_in="torch"), returncode=-4, stderr="zsh: illegal hardware instruction"),
    {"device": "mps", "state": "not-ready", "root_cause": "torch.import", "exit_code": 1,
     "summary_contains": "SIGILL", "remedy_command": "--force-reinstall",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m2-macos-vm-no-ci", "A macOS 15 virtual machine (UTM) on an M2, not in CI: MPS is built but not available.",
    ["mps-facts.md 3 (kern.hv_vmm_present = 1 inside a VM), P4 (MPSDevice.mm skips virtualised devices)"],
    mac_host("15.1", "24B83", vmm=True, brand="Apple M2 (Virtual)", memsize=8 * GIB),
    target(PY, frames(interp(), torch_stage(version="2.13.0", built=True, available=False))),
    {"device": "mps", "state": "not-ready", "root_cause": "torch.mps-available", "exit_code": 1,
     "remedy_command": "check --python /Users/alex/proj/.venv/bin/python --device cpu", "summary_contains": "virtual machine",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m2-homebrew-python-no-venv", "M2, macOS 15.1, Homebrew's Python 3.13 used directly (no venv; PEP 668 "
    "externally managed), no torch.",
    ["PEP 668 (EXTERNALLY-MANAGED marker, which Homebrew's Python carries)", "mps-facts.md 8.1"],
    mac_host("15.1", "24B83"),
    target("/opt/homebrew/bin/python3", frames(
        dict(interp(version=(3, 13, 1), python="/opt/homebrew/bin/python3", venv=False,
                    real="/opt/homebrew/Cellar/python@3.13/3.13.1/Frameworks/Python.framework/Versions/3.13/bin/python3.13"),
             externally_managed=True, prefix="/opt/homebrew/opt/python@3.13/Frameworks/Python.framework/Versions/3.13",
             base_prefix="/opt/homebrew/opt/python@3.13/Frameworks/Python.framework/Versions/3.13"),
        {"installed": False, "packages": {"torch": None, "torchvision": None, "torchaudio": None, "numpy": None}})),
    {"device": "mps", "state": "not-ready", "root_cause": "torch.import", "exit_code": 1,
     "remedy_command": "'torch==2.15.*' 'torchvision==0.29.*'",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m3-python316-no-torch", "M3 on macOS 15.2 with a uv venv on Python 3.16 (a pre-release), no torch: no torch "
    "release supports it yet, so pip finds no wheel.",
    ["torch_releases.json: the newest wheels are cp311-cp315 (torch 2.15, read from the index)",
     "mps-facts.md P17 (Python too new for torch)"],
    mac_host("15.2", "24C101", brand="Apple M3", memsize=24 * GIB, tools={"uv": "/opt/homebrew/bin/uv"}),
    target(PY, frames(interp(version=(3, 16, 0), uv=True, real="/Users/alex/.local/share/uv/python/"
                             "cpython-3.16.0a2-macos-aarch64-none/bin/python3.16"),
                      {"installed": False, "packages": {"torch": None, "torchvision": None, "torchaudio": None,
                                                        "numpy": None}})),
    {"device": "mps", "state": "not-ready", "root_cause": "python.version", "exit_code": 1,
     "remedy_command": "uv python install cpython-3.12-macos-aarch64-none",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m4-python313t-no-torch", "M4 on macOS 15.5 with a uv venv on free-threaded Python 3.13.5 (3.13t) and no torch: "
    "torch 2.12 and later publish no cp313t wheels, so the newest torch pip can install there is 2.11.",
    ["torch_releases.json free_threaded: cp313t macOS arm64 wheels in 2.7-2.11 only, cp314t from 2.9 (read from the "
     "wheel tags on PyPI by tools.refresh)",
     "CPython Python/getversion.c and sysconfig Py_GIL_DISABLED (PEP 703): how a free-threaded build shows itself"],
    mac_host("15.5", "24F74", brand="Apple M4", memsize=16 * GIB, tools={"uv": "/opt/homebrew/bin/uv"}),
    target(PY, frames(dict(interp(version=(3, 13, 5), uv=True, mac_ver="15.5",
                                  real="/Users/alex/.local/share/uv/python/cpython-3.13.5+freethreaded-macos-aarch64-none/"
                                       "bin/python3.13t"), free_threaded=True),
                      {"installed": False, "packages": {"torch": None, "torchvision": None, "torchaudio": None,
                                                        "numpy": None}})),
    {"device": "mps", "state": "not-ready", "root_cause": "torch.import", "exit_code": 1,
     "remedy_command": "torch==2.11.*",
     "warnings": ["python.free-threaded"],
     "skipped_layers": []},
)
machine(
    "m4-tahoe-python-sees-16", "M4 on macOS 26.1 (Tahoe); a Python built with an older SDK reports macOS 16.0.",
    ["mps-facts.md 3 (cpython#135675: platform.mac_ver() returns 16.0 instead of 26.0 on Tahoe)"],
    mac_host("26.1", "25B78", brand="Apple M4", memsize=16 * GIB, kernel="25.1.0"),
    target(PY, frames(interp(version=(3, 12, 4), mac_ver="16.0"), torch_stage(version="2.14.1", name="Apple M4", cores=10),
                      parity(), smoke())),
    {"device": "mps", "state": "ready", "root_cause": None, "exit_code": 0, "strict_exit_code": 1,
     "warnings": ["macos.python-view"],
     "skipped_layers": []},
)
machine(
    "m2-macos14-torch215", "M2 on macOS 14.7 with torch 2.15.0 and MPS unavailable. The 2.15 wheels install on macOS 14 "
    "(tag macosx_14_0_arm64) and libtorch_cpu's only OS probe is a macOS 14 selector, so the macOS is not the reason, "
    "whatever the binary's 'macOS 15.0+' message says.",
    ["torch_releases.json 2.15 row (read from the torch 2.15.0 wheels by tools.refresh; docs/measurements.md)",
     "mps-facts.md 'Verified from the wheels themselves' (2.15: no OS gate, message text only)"],
    mac_host("14.7", "23H124", brand="Apple M2", memsize=16 * GIB, kernel="23.6.0"),
    target(PY, frames(interp(mac_ver="14.7"), torch_stage(version="2.15.0", built=True, available=False))),
    {"device": "mps", "state": "not-ready", "root_cause": "torch.mps-available", "exit_code": 1,
     "remedy_command": "system_profiler SPDisplaysDataType", "summary_contains": "on a new enough macOS",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m1-macos13-wants-mps", "M1 on macOS 13.6.7, a fresh venv with Python 3.12 and no torch, asking for MPS: an unpinned "
    "`pip install torch` would get 2.11 (the newest whose wheels install on 13), which has no MPS there.",
    ["torch_releases.json: 2.12+ wheels are macosx_14_0_arm64 (install minimum 14.0); 2.9-2.11 gate MPS on a macOS 14 "
     "selector; 2.8 gates on a macOS 13 one (read from the wheels by tools.refresh)"],
    mac_host("13.6.7", "22G720", brand="Apple M1", memsize=16 * GIB, kernel="22.6.0"),
    target(PY, frames(interp(mac_ver="13.6.7"), {"installed": False, "packages": {"torch": None, "torchvision": None,
                                                                                  "torchaudio": None, "numpy": None}})),
    {"device": "mps", "state": "not-ready", "root_cause": "macos.version", "exit_code": 1,
     "remedy_command": "'torch==2.8.*' 'torchvision==0.23.*'",
     "why_contains": "pin torch 2.8, the newest whose MPS runs on macOS 13.6.7 (an unpinned `pip install torch` gets 2.11 "
                     "here, which has no MPS on this macOS)",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m1-macos13-torch27", "M1 on macOS 13.6.7 with torch 2.7.1: MPS runs (2.5-2.8 need macOS 13.0), but bfloat16, complex "
    "tensors and torch.fft on MPS raise until macOS 14.",
    ["torch 2.7.0 macOS arm64 wheel: MPSDevice.mm probes cumulativeSumWithTensor:axis:name: (macOS 13); "
     "libtorch_cpu.dylib TORCH_CHECKs EmptyTensor.cpp:46 'MPS BFloat16 is only supported on MacOS 14 or newer', "
     "OperationUtils.mm 'MPS complex types are only supported on MacOS 14.0 or newer.', FastFourierTransform.mm "
     "'FFT operations are only supported on MacOS 14+' (all behind is_macos_13_or_newer(MACOS_VER_14_0_PLUS))"],
    mac_host("13.6.7", "22G720", brand="Apple M1", memsize=16 * GIB, kernel="22.6.0"),
    target(PY, frames(interp(mac_ver="13.6.7"), torch_stage(version="2.7.1", name="Apple M1", cores=8, vision="0.22.1",
                                                            rec=11 * GIB),
                      parity(), smoke())),
    {"device": "mps", "state": "ready", "root_cause": None, "exit_code": 0, "strict_exit_code": 1,
     "warnings": ["macos.mps-features"],
     "skipped_layers": []},
)
machine(
    "m1-macos12-torch211", "M1 on macOS 12.7.6 with torch 2.11.0: it installs (macosx_11_0_arm64) and imports, but its "
    "MPS gate needs macOS 14.",
    ["torch_releases.json 2.11 row: install minimum 11.0 (wheel tag), MPS gate HermiteanToRealFFT (macOS 14.0) in "
     "libtorch_cpu.dylib; 2.4 row: MPS from 12.3 (LSTM selector)"],
    mac_host("12.7.6", "21H1320", brand="Apple M1", memsize=16 * GIB, kernel="21.6.0"),
    target(PY, frames(interp(mac_ver="12.7.6"), torch_stage(version="2.11.0", built=True, available=False,
                                                            vision="0.26.0"))),
    {"device": "mps", "state": "not-ready", "root_cause": "macos.version", "exit_code": 1,
     "remedy_command": "'torch==2.4.*' 'torchvision==0.19.*'",
     "why_contains": "torch 2.11 installs on macOS 11.0 and later and runs on the CPU there, but its MPS backend checks "
                     "for macOS 14.0",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m2-python310-torch215", "M2 on macOS 15.1, Python 3.10 venv holding torch 2.15.0 files that do not import (2.15 has "
    "no cp310 wheel; Requires-Python >=3.11).",
    ["torch_releases.json 2.15 row: Requires-Python >=3.11, wheels cp311-cp315 (read from the index)"],
    mac_host("15.1", "24B83"),
    target(PY, frames(interp(version=(3, 10, 15), real="/opt/homebrew/Cellar/python@3.10/3.10.15/Frameworks/"
                             "Python.framework/Versions/3.10/bin/python3.10"),
                      {"installed": True, "packages": {"torch": "2.15.0", "torchvision": None, "torchaudio": None,
                                                       "numpy": "2.2.6"},
                       "import_seconds": 0.2, "import_error": {
                           "type": "ModuleNotFoundError", "message": "No module named 'torch._C'",
                           "traceback": "Traceback (most recent call last):\n  File \"<probe>\", line 1\n"
                                        "ModuleNotFoundError: No module named 'torch._C'"},
                       "warnings": []})),
    {"device": "mps", "state": "not-ready", "root_cause": "python.version", "exit_code": 1,
     "summary_contains": "Python 3.10 is not supported by torch 2.15 (>=3.11,<3.16)",
     "remedy_command": "/opt/homebrew/bin/python3.12 -m venv /Users/alex/proj/.venv-py312",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m1-torch22-python312", "M1 on macOS 14.5, Python 3.12 with torch 2.2.2 and torchvision 0.17.2, MPS working: 2.2 "
    "ships cp312 wheels.",
    ["torch_releases.json 2.2 row: cp312 wheels for macOS arm64 and x86_64 and Linux (read from the index)"],
    mac_host("14.5", "23F79", brand="Apple M1", memsize=16 * GIB, kernel="23.5.0"),
    target(PY, frames(interp(mac_ver="14.5"), torch_stage(version="2.2.2", vision="0.17.2", name="Apple M1", cores=8,
                                                          numpy="1.26.4"),
                      parity(), smoke(cold=650.0, warm=9.1))),
    {"device": "mps", "state": "ready", "root_cause": None, "exit_code": 0,
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "m3-torch216-newer-than-table", "M3 on macOS 15.3 with torch 2.16.0, newer than every row of the release table; MPS "
    "works: the runtime facts decide and one warning names the missing row.",
    ["docs/checks.md 'A torch newer than the table'"],
    mac_host("15.3", "24D60", brand="Apple M3", memsize=24 * GIB),
    target(PY, frames(interp(mac_ver="15.3"), torch_stage(version="2.16.0", vision="0.30.0", name="Apple M3", cores=10),
                      parity(), smoke())),
    {"device": "mps", "state": "ready", "root_cause": None, "exit_code": 0, "strict_exit_code": 1, "summary_contains": "1 warning",
     "warnings": ["python.version"],
     "skipped_layers": []},
)
machine(
    "m3-codex-sandbox", "M3 Max on macOS 26.2, torch 2.13 run by an agent under Seatbelt: MPS built, not available.",
    ["mps-facts.md 3 and P4 (openai/codex#10199: is_macos_or_newer(14,0)=True, is_built()=True, is_available()=False "
     "on macOS 26.2 / M3)", "openai/codex AGENTS.md: CODEX_SANDBOX=seatbelt under Seatbelt"],
    mac_host("26.2", "25C56", brand="Apple M3 Max", memsize=64 * GIB, kernel="25.2.0", env={"CODEX_SANDBOX": "seatbelt"}),
    target(PY, frames(interp(mac_ver="26.2"), torch_stage(version="2.13.0", built=True, available=False))),
    {"device": "mps", "state": "not-ready", "root_cause": "torch.mps-available", "exit_code": 1,
     "summary_contains": "inside a sandbox (CODEX_SANDBOX=seatbelt)", "remedy_command": "mps-doctor check --python",
     "warnings": [],
     "skipped_layers": []},
)
# What /dev and /sys/bus/pci/devices showed (the host probe's NVIDIA hardware facts), read on the machines themselves:
# the CI box (virtio devices, no NVIDIA hardware) and the H200 host (its GPU at PCI 0000:00:06.0, as nvidia-smi shows).
CI_DEV = (
    "autofs btrfs-control console cpu cpu_dma_latency fd full fuse hwrng kmsg kvm loop-control loop0 loop1 loop2 "
    "loop3 loop4 loop5 loop6 loop7 net null ptmx pts random shm stderr stdin stdout tty tty0 tty1 tty10 tty11 "
    "tty12 tty13 tty14 tty15 tty16 tty17 tty18 tty19 tty2 tty20 tty21 tty22 tty23 tty24 tty25 tty26 tty27 tty28 "
    "tty29 tty3 tty30 tty31 tty32 tty33 tty34 tty35 tty36 tty37 tty38 tty39 tty4 tty40 tty41 tty42 tty43 tty44 "
    "tty45 tty46 tty47 tty48 tty49 tty5 tty50 tty51 tty52 tty53 tty54 tty55 tty56 tty57 tty58 tty59 tty6 tty60 "
    "tty61 tty62 tty63 tty7 tty8 tty9 ttyS0 urandom userfaultfd vcs vcs1 vcsa vcsa1 vcsu vcsu1 vda vga_arbiter "
    "vsock zero zram0 "
).split()
CI_PCI = {"0000:00:00.0": "0x8086", "0000:00:01.0": "0x1af4", "0000:00:02.0": "0x1af4", "0000:00:03.0": "0x1af4",
          "0000:00:04.0": "0x1af4", "0000:00:05.0": "0x1af4"}
H200_DEV = (
    "autofs btrfs-control console cpu cpu_dma_latency fd full fuse hwrng infiniband kmsg kvm loop0 loop1 loop2 "
    "loop3 loop4 loop5 loop6 loop7 loop-control net null nvidia0 nvidia-caps nvidiactl nvidia-uvm "
    "nvidia-uvm-tools ptmx pts random shm stderr stdin stdout tty tty0 tty1 tty10 tty11 tty12 tty13 tty14 tty15 "
    "tty16 tty17 tty18 tty19 tty2 tty20 tty21 tty22 tty23 tty24 tty25 tty26 tty27 tty28 tty29 tty3 tty30 tty31 "
    "tty32 tty33 tty34 tty35 tty36 tty37 tty38 tty39 tty4 tty40 tty41 tty42 tty43 tty44 tty45 tty46 tty47 tty48 "
    "tty49 tty5 tty50 tty51 tty52 tty53 tty54 tty55 tty56 tty57 tty58 tty59 tty6 tty60 tty61 tty62 tty63 tty7 "
    "tty8 tty9 ttyS0 urandom userfaultfd vcs vcs1 vcsa vcsa1 vcsu vcsu1 vda vdb vga_arbiter vsock zero zram0 "
).split()
H200_PCI = {"0000:00:00.0": "0x8086", "0000:00:01.0": "0x1af4", "0000:00:02.0": "0x1af4", "0000:00:03.0": "0x1af4",
            "0000:00:04.0": "0x1af4", "0000:00:05.0": "0x1af4", "0000:00:06.0": "0x10de"}
PCI_DEVICES = "/sys/bus/pci/devices"


def kernel_files(dev, pci):
    """The host's files as the probe reads them: the names in /dev and in /sys/bus/pci/devices, each device's vendor."""
    files = {"/dev": list(dev), PCI_DEVICES: sorted(pci)}
    files.update({"%s/%s/vendor" % (PCI_DEVICES, address): vendor + "\n" for address, vendor in pci.items()})
    return files


LINUX_ENV = {"HOME": "/home/dev", "USER": "dev", "SHELL": "/bin/bash"}
LINUX_PY = "/home/dev/proj/.venv/bin/python"


def linux_interp(version=(3, 11, 7), python=LINUX_PY):
    prefix = os.path.dirname(os.path.dirname(python))
    return {"version": list(version), "implementation": "CPython", "executable": python,
            "executable_realpath": "/usr/bin/python3.11", "prefix": prefix, "base_prefix": "/usr", "machine": "x86_64",
            "sys_platform": "linux", "mac_ver": None, "pointer_bits": 64, "proc_translated": None,
            "pyvenv_cfg": {"home": "/usr/bin", "include-system-site-packages": "false", "version": "3.11.7"},
            "conda_meta": False, "conda_subdir": None, "externally_managed": False,
            "free_threaded": False}


def linux_torch(version="2.13.0+cpu", cuda=None, site="/home/dev/proj/.venv/lib/python3.11/site-packages"):
    return {"installed": True, "packages": {"torch": version, "torchvision": None, "torchaudio": None, "numpy": "2.3.4"},
            "import_seconds": 1.31, "version": version, "file": site + "/torch/__init__.py", "num_threads": 2,
            "mps": {"built": False, "available": False},
            "cuda": cuda or {"version": None, "available": False, "arch_list": [], "devices": []}, "warnings": []}


machine(
    "linux-x86-cpu-torch", "Linux x86_64 (Debian 12, 2 cores) with torch 2.13.0+cpu: the CPU is the device.",
    ["recorded from this project's CI machine (torch 2.13.0+cpu wheel)",
     "/dev and /sys/bus/pci/devices read on that CI machine when the NVIDIA hardware fact was added"],
    {"system": "Linux", "uname": ["6.1.0", "x86_64"], "env": LINUX_ENV, "brew": [], "memory_bytes": 24 * GIB,
     "distro": {"id": "debian", "version": "12", "name": "Debian GNU/Linux 12 (bookworm)"}, "which": {}, "commands": {},
     "files": kernel_files(CI_DEV, CI_PCI)},
    target(LINUX_PY, frames(linux_interp(), linux_torch(), parity("cpu"),
                            smoke("cpu", cold=36.7, warm=37.6, reference="cpu-float64")),
           chosen_because="the .venv in /home/dev/proj (no environment is active)"),
    {"device": "cpu", "state": "ready", "root_cause": None, "exit_code": 0,
     "warnings": [],
     "skipped_layers": []},
)


DATA = os.path.join(os.path.dirname(HERE), "data")
with open(os.path.join(DATA, "nvidia-smi-h200.txt")) as _h:
    SMI_H200 = _h.read()
with open(os.path.join(DATA, "nvidia-smi-L-h200.txt")) as _h:
    SMI_L_H200 = _h.read()


def smi(header=SMI_H200, listing=SMI_L_H200, driver=None, cuda=None, name=None):
    """nvidia-smi output: the real H200 text, with the driver, CUDA version and GPU name swapped when asked."""
    if driver:
        header = header.replace("580.159.04", driver)
    if cuda:
        header = header.replace("CUDA Version: 13.0", "CUDA Version: %s" % cuda)
    if name:
        header = header.replace("NVIDIA H200         ", name.ljust(20)[:20])
        listing = listing.replace("NVIDIA H200", name)
    return {"nvidia-smi": {"returncode": 0, "stdout": header, "stderr": ""},
            "nvidia-smi -L": {"returncode": 0, "stdout": listing, "stderr": ""}}


def linux_gpu_host(commands, env=None, files=None):
    base_env = dict(LINUX_ENV)
    base_env.update(env or {})
    host = {"system": "Linux", "uname": ["6.8.0-49-generic", "x86_64"], "env": base_env, "brew": [],
            "memory_bytes": 128 * GIB, "distro": {"id": "ubuntu", "version": "24.04", "name": "Ubuntu 24.04.1 LTS"},
            "which": {"nvidia-smi": "/usr/bin/nvidia-smi"}, "commands": commands}
    if files:
        host["files"] = files
    return host


def cuda_facts(version="13.0", available=True, name="NVIDIA H200", cap=(9, 0), memory=150109880320,
               arch=("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")):
    devices = [{"index": 0, "name": name, "capability": list(cap), "total_memory": memory}] if available else []
    return {"version": version, "available": available, "arch_list": list(arch) if version else [], "devices": devices}


with open(os.path.join(HERE, "_h200_frames.json")) as _h:
    H200_FRAMES = json.load(_h)
# `mps-doctor bench` (its default options, device auto: the CPU, then cuda) on the lent H200 machine on 2026-12-01:
# the options the doctor gave the bench child (but the data folder's path) and the child's frames as it wrote them.
with open(os.path.join(HERE, "_h200_bench_frames.json")) as _h:
    H200_BENCH = {"options": {"devices": ["cpu", "auto"], "batch": 64, "warmup": 10, "windows": 5, "steps": 20,
                              "epochs": 0, "pipeline": "resident", "workers": 0, "images_per_epoch": None,
                              "no_cpu": False},
                  "frames": json.load(_h)}

machine(
    "linux-h200-cuda", "A real NVIDIA H200 (driver 580.159.04, CUDA 13.0) with torch 2.11.0+cu130: the child's output and "
    "nvidia-smi text as recorded on that machine on 2026-11-29 (paths redacted).",
    ["recorded from a real H200 run, docs/measurements.md",
     "/dev and /sys/bus/pci/devices read on the H200 host (driver 580.159.04, GPU at PCI 0000:00:06.0) when the NVIDIA "
     "hardware fact was added"],
    linux_gpu_host(smi(), files=kernel_files(H200_DEV, H200_PCI)),
    target("/home/dev/proj/.venv/bin/python3", H200_FRAMES),
    {"device": "cuda", "state": "ready", "root_cause": None, "exit_code": 0,
     "warnings": [],
     "skipped_layers": []},
    bench=H200_BENCH,
)
machine(
    "linux-cpu-wheel-on-gpu", "Linux with an RTX 4090 (driver for CUDA 12.8) but torch 2.13.0+cpu installed.",
    ["mps-facts.md 7.2 item 1 (CPU wheel on a GPU box; choose cuXYZ <= the driver's CUDA)", "7.1 (build -> CC table)"],
    linux_gpu_host(smi(driver="570.86.10", cuda="12.8", name="NVIDIA GeForce RTX 4090")),
    target(LINUX_PY, frames(linux_interp(), linux_torch()), device="cuda"),
    {"device": "cuda", "state": "not-ready", "root_cause": "torch.cuda-built", "exit_code": 1, "requested": "cuda",
     "remedy_command": "--force-reinstall 'torch==2.13.*' 'torchvision==0.28.*' --index-url https://download.pytorch.org/whl/cu126",
     "warnings": [],
     "skipped_layers": []},
)
# torch's warning on a driver that supports CUDA 12.8 only (CUDAFunctions.cpp; mps-facts.md 7.1).
DRIVER_TOO_OLD_12080 = (
    "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 12080). Please "
    "update your GPU driver by downloading and installing a new version from the URL: "
    "http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version "
    "that has been compiled with your version of the CUDA driver.")

machine(
    "linux-cu130-on-driver-128", "torch 2.13.0+cu130 on a driver that supports CUDA 12.8 only: 'driver too old'.",
    ["mps-facts.md 7.1 (CUDAFunctions.cpp 'driver on your system is too old (found version 12080)'; typical cause a "
     "cu130 wheel on a 12.8/12.9 driver)", "7.2 item 2"],
    linux_gpu_host(smi(driver="570.86.10", cuda="12.8")),
    target(LINUX_PY, frames(linux_interp(), dict(linux_torch("2.13.0+cu130", cuda_facts(available=False)), warnings=[
        DRIVER_TOO_OLD_12080])), device="cuda"),
    {"device": "cuda", "state": "not-ready", "root_cause": "cuda.driver-version", "exit_code": 1, "requested": "cuda",
     "remedy_command": "--index-url https://download.pytorch.org/whl/cu126",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "linux-p40-sm61-cu130", "A Tesla P40 (compute capability 6.1) with torch 2.13.0+cu130, built for sm_75 and newer.",
    ["mps-facts.md 7.1 (cu126 = 5.0-9.0, cu13x = 7.5-12.0; 'no kernel image is available for execution on the device')"],
    linux_gpu_host(smi(name="Tesla P40")),
    target(LINUX_PY, frames(linux_interp(), linux_torch("2.13.0+cu130", cuda_facts(name="Tesla P40", cap=(6, 1),
                                                                                       memory=24 * GIB))), device="cuda"),
    {"device": "cuda", "state": "not-ready", "root_cause": "cuda.capability", "exit_code": 1, "requested": "cuda",
     "remedy_command": "--index-url https://download.pytorch.org/whl/cu126",
     "warnings": [],
     "skipped_layers": []},
)
machine(
    "linux-cuda-visible-empty", "The H200 host with CUDA_VISIBLE_DEVICES set to the empty string (seen for real there).",
    ["mps-facts.md 7.1 (NVIDIA: an empty CUDA_VISIBLE_DEVICES hides every GPU)", "docs/measurements.md (run on the H200)",
     "/dev and /sys/bus/pci/devices read on the H200 host when the NVIDIA hardware fact was added"],
    linux_gpu_host(smi(), env={"CUDA_VISIBLE_DEVICES": ""}, files=kernel_files(H200_DEV, H200_PCI)),
    target(LINUX_PY, frames(linux_interp(), linux_torch("2.11.0+cu130", cuda_facts(available=False))), device="cuda"),
    {"device": "cuda", "state": "not-ready", "root_cause": "cuda.visible-devices", "exit_code": 1, "requested": "cuda",
     "remedy_command": "unset CUDA_VISIBLE_DEVICES",
     "warnings": [],
     "skipped_layers": []},
)

machine(
    "linux-pypi-torch213-driver-570", "torch 2.13.0 from plain PyPI (no local label; its Linux x86_64 wheel is a CUDA 13.0 "
    "build) on driver 570, which supports CUDA 12.8: the fix names the cu126 index.",
    ["torch_releases.json 2.13 row: pypi_linux_cuda 13.0 (torch/version.py of the PyPI wheel, read by "
     "tools.refresh); CUDA builds cu126, cu130, cu132 (RELEASE.md)",
     "CUDA Toolkit release notes: CUDA 13.x needs driver >= 580"],
    linux_gpu_host(smi(driver="570.86.10", cuda="12.8", name="NVIDIA GeForce RTX 4090")),
    target(LINUX_PY, frames(linux_interp(), dict(linux_torch("2.13.0", cuda_facts(available=False)), warnings=[
        DRIVER_TOO_OLD_12080])), device="cuda"),
    {"device": "cuda", "state": "not-ready", "root_cause": "cuda.driver-version", "exit_code": 1, "requested": "cuda",
     "remedy_command": "'torch==2.13.*' 'torchvision==0.28.*' --index-url https://download.pytorch.org/whl/cu126",
     "why_contains": "A plain `pip install torch` on Linux x86_64 gets torch 2.13's CUDA 13.0 build from PyPI",
     "warnings": [],
     "skipped_layers": []},
)
if __name__ == "__main__":
    for name, data in MACHINES.items():
        folder = os.path.join(HERE, name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "machine.json"), "w") as handle:
            json.dump(data, handle, indent=1, sort_keys=True)
            handle.write("\n")
    print("wrote %d machines" % len(MACHINES))
