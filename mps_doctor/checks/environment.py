"""Advisories about the environment around torch: its variables, memory, CI runners, conda and Homebrew builds, and
what Python sees of macOS."""

from mps_doctor.checking.context import Context
from mps_doctor.checking.model import CheckAgain, Outcome, Remedy, export, note, passed, skipped, unset, warned
from mps_doctor.checking.registry import check
from mps_doctor.devices import hosted_runner
from mps_doctor.release_choice import new_environment
from mps_doctor.versions import is_number

MPS_ENV_DOCS = "https://docs.pytorch.org/docs/stable/mps_environment_variables.html"
# Default low watermark on unified memory (MPSAllocator.h; reference/mps-facts.md section 5).
DEFAULT_LOW_WATERMARK = 1.4
# A lower, consistent pair of limits: the high cap at the recommended working set, the low one below it
# (reference/mps-facts.md 8.3 and P7: "lowering the limit takes two variables, not one").
LOWER_LIMITS = (("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "1.0"), ("PYTORCH_MPS_LOW_WATERMARK_RATIO", "0.8"))
LOWER_LIMIT_EXPORTS = tuple(export(name, value) for name, value in LOWER_LIMITS)
PROFILE_NOTE = note("also fix them in your shell profile if they are set there")
GIB = 1024 ** 3


def parse_ratio(value: str):
    """A float, or None when VALUE is not one as C's strtod reads it (Python's float() also takes '1_0' and '١.٥')."""
    if not value.isascii() or "_" in value:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def pytorch_env_problems(env) -> list:
    """(variable, problem, fixing command) for each PYTORCH_* value torch would reject or misread.

    Ranges from MPSAllocator.mm (reference/mps-facts.md section 5): high watermark in [0, 2], low watermark in
    [0, high] (or [0, 2] when high is 0); the fallback flag is parsed with std::stoi.
    """
    problems = []
    high_text = env.get("PYTORCH_MPS_HIGH_WATERMARK_RATIO")
    high = parse_ratio(high_text) if high_text is not None else 1.7
    if high_text is not None and (high is None or not 0.0 <= high <= 2.0):
        problems.append(("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "%r is not a number in [0.0, 2.0]" % high_text,
                         unset("PYTORCH_MPS_HIGH_WATERMARK_RATIO")))
        high = None
    low_text = env.get("PYTORCH_MPS_LOW_WATERMARK_RATIO")
    if low_text is not None:
        low = parse_ratio(low_text)
        bound = 2.0 if not high else high
        if low is None or not 0.0 <= low <= bound:
            problems.append(("PYTORCH_MPS_LOW_WATERMARK_RATIO", "%r is not a number in [0.0, %g] (the high watermark)"
                             % (low_text, bound), unset("PYTORCH_MPS_LOW_WATERMARK_RATIO")))
    elif high_text is not None and high and high < DEFAULT_LOW_WATERMARK:
        # Lowering the high watermark alone leaves the low one at its default 1.4, above it: torch rejects that.
        problems.append(("PYTORCH_MPS_LOW_WATERMARK_RATIO", "is unset, so it stays at its default %.1f, above the high "
                         "watermark %g" % (DEFAULT_LOW_WATERMARK, high),
                         export("PYTORCH_MPS_LOW_WATERMARK_RATIO", "%g" % round(high * 0.8, 2))))
    fallback = env.get("PYTORCH_ENABLE_MPS_FALLBACK")
    if fallback is not None and not is_number(fallback.strip().lstrip("-")):
        problems.append(("PYTORCH_ENABLE_MPS_FALLBACK", "%r is not an integer (torch parses it with std::stoi)" % fallback,
                         export("PYTORCH_ENABLE_MPS_FALLBACK", "1")))
    for name in ("PYTORCH_MPS_FAST_MATH", "PYTORCH_MPS_PREFER_METAL"):
        if env.get(name) is not None and env[name] not in ("0", "1"):
            problems.append((name, "%r is not 0 or 1" % env[name], unset(name)))
    metal = env.get("PYTORCH_MPS_METAL_VERSION")
    if metal is not None and not (metal.count(".") == 1 and all(is_number(p) for p in metal.split("."))):
        problems.append(("PYTORCH_MPS_METAL_VERSION", "%r is not major.minor such as 3.1" % metal,
                         unset("PYTORCH_MPS_METAL_VERSION")))
    return problems


@check("env.pytorch-vars", "PYTORCH_* variables have valid values", advisory=10)
def env_pytorch_vars(ctx: Context) -> Outcome:
    """ranges from MPSAllocator.mm: high watermark in [0, 2], low in [0, high]; the fallback flag is an integer
    (std::stoi); 0/1 flags; Metal version major.minor.
    """
    env = ctx.host.env
    names = sorted(k for k in env if k.startswith("PYTORCH_"))
    problems = pytorch_env_problems(env)
    if problems:
        return warned(
            "invalid %s" % ", ".join(p[0] for p in problems),
            Remedy("; ".join("%s=%s" % (name, problem) for name, problem, _ in problems),
                   "torch rejects out-of-range watermark ratios at the first MPS allocation and misreads the others.",
                   tuple(p[2] for p in problems) + (PROFILE_NOTE,), MPS_ENV_DOCS, key="fix-pytorch-env",
                   title="Fix the PYTORCH_* variables"),
        )
    if env.get("PYTORCH_MPS_HIGH_WATERMARK_RATIO") not in (None, "") and parse_ratio(env["PYTORCH_MPS_HIGH_WATERMARK_RATIO"]) == 0.0:
        return warned(
            "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 removes the MPS memory limit",
            Remedy("The high watermark is 0.0 (no limit).", "torch warns this 'may cause system failure': the Mac swaps "
                   "instead of raising an out-of-memory error.", LOWER_LIMIT_EXPORTS + (PROFILE_NOTE,),
                   MPS_ENV_DOCS, key="fix-pytorch-env", title="Fix the PYTORCH_* variables"),
        )
    if not names:
        return passed("no PYTORCH_* variables are set")
    return passed("valid: " + ", ".join("%s=%s" % (k, env[k]) for k in names))


@check("host.memory", "Enough memory for training", advisory=40)
def host_memory(ctx: Context) -> Outcome:
    """`hw.memsize` / psutil; Metal's recommended working set is about 75% of unified memory."""
    total = ctx.host.memory_bytes
    if total is None:
        return skipped("memory size unknown")
    size = "%.0f GiB" % (total / GIB)
    if ctx.is_mac and ctx.device == "mps" and total < 8 * GIB:
        # Metal's recommendedMaxWorkingSetSize is typically ~75% of unified memory (MPSAllocator.h comment).
        return warned(
            "only %s of unified memory, shared by CPU and GPU" % size,
            Remedy("This Mac has %s of unified memory." % size,
                   "MPS may use about three quarters of it; larger models run out of memory or swap. A lower cap turns "
                   "swapping into a clear out-of-memory error; smaller batches avoid both.",
                   LOWER_LIMIT_EXPORTS, MPS_ENV_DOCS, key="small-memory"),
        )
    if ctx.is_mac and ctx.torch and ctx.torch.mps_recommended_max_memory:
        return passed("%s unified memory, %.1f GiB recommended for Metal" % (size, ctx.torch.mps_recommended_max_memory / GIB))
    return passed("%s %s" % (size, "unified memory" if ctx.is_mac else "of memory"))


@check("ci.hosted-runner", "Not a hosted CI runner without a GPU", advisory=50)
def ci_hosted_runner(ctx: Context) -> Outcome:
    """GitHub-hosted macOS runners are VMs without MPS (GitHub runner docs)."""
    if not ctx.is_mac:
        return passed("not a macOS runner" + (" (CI)" if ctx.host.env.get("CI") else ""))
    if hosted_runner(ctx.host) and ctx.device != "mps":
        return passed("hosted macOS runner: MPS layers skipped, the %s is checked (GitHub: 'Metal Performance Shaders "
                      "(MPS) are not supported'); --require-device mps to insist" % ctx.device.upper())
    if hosted_runner(ctx.host):
        return warned(
            "a hosted macOS CI runner (a virtual machine): MPS is not supported there",
            Remedy("GITHUB_ACTIONS / RUNNER_ENVIRONMENT or kern.hv_vmm_present mark a hosted VM.",
                   "GitHub: 'Nested-virtualization and Metal Performance Shaders (MPS) are not supported'. Gate on the CPU "
                   "there and keep GPU checks for self-hosted Apple Silicon runners.",
                   (CheckAgain(device="cpu"),),
                   "https://docs.github.com/en/actions/using-github-hosted-runners/about-github-hosted-runners",
                   key="hosted-runner", title="Use the CPU on this machine (gate MPS on a bare-metal Mac)"),
        )
    return passed("not a hosted CI runner")


@check("conda.platform", "conda environment matches the hardware", advisory=60)
def conda_platform(ctx: Context) -> Outcome:
    """the `subdir` of the environment's python record in `conda-meta/`, and `CONDA_SUBDIR`."""
    interp = ctx.interp
    subdir_env = ctx.host.env.get("CONDA_SUBDIR")
    if not ctx.is_mac:
        return skipped("not macOS")
    if interp is None or (not interp.conda_meta and not subdir_env):
        return passed("not a conda environment")
    if ctx.host.hw_arm64 and ("osx-64" in (interp.conda_subdir, subdir_env)):
        source = "CONDA_SUBDIR=osx-64" if subdir_env == "osx-64" else "this environment's python is osx-64"
        return warned(
            "an Intel (osx-64) conda environment on an Apple Silicon Mac (%s)" % source,
            Remedy("conda installs x86_64 packages here, run by Rosetta.",
                   "x86_64 Python gets no MPS and no torch newer than %s. Create an osx-arm64 environment beside it "
                   "(or install Miniforge arm64)." % ctx.releases.last_intel_torch,
                   (new_environment(ctx, "arm64", arm64=True),),
                   "https://github.com/conda-forge/miniforge", key="conda-arm64"),
        )
    return passed("conda platform %s" % (interp.conda_subdir or subdir_env or "unknown"))


@check("brew.prefix", "Homebrew matches the hardware", advisory=70)
def brew_prefix(ctx: Context) -> Outcome:
    """`/opt/homebrew/bin/brew` vs `/usr/local/bin/brew` (Homebrew docs/Installation.md)."""
    if not ctx.is_mac:
        return skipped("not macOS")
    prefixes = ctx.host.brew_prefixes
    if not prefixes:
        return passed("Homebrew not installed")
    real = (ctx.interp.executable_realpath or "") if ctx.interp else ""
    # /usr/local is Homebrew's Intel prefix, /opt/homebrew its Apple Silicon one (Homebrew docs/Installation.md).
    intel_python = ctx.host.hw_arm64 and real.startswith(("/usr/local/Cellar/", "/usr/local/opt/"))
    if ctx.host.hw_arm64 and (prefixes == ("/usr/local",) or intel_python):
        return warned(
            "an Intel Homebrew (/usr/local) on an Apple Silicon Mac" + (", and the target Python comes from it" if intel_python else ""),
            Remedy("Homebrew in /usr/local installs x86_64 programs that run under Rosetta.",
                   "A Python from it is x86_64: no MPS, no torch newer than %s. Install the arm64 Homebrew in "
                   "/opt/homebrew beside it (the installer only downloads after you confirm)." % ctx.releases.last_intel_torch,
                   (note("this downloads and runs Homebrew's installer; read it first:"),
                    note('arch -arm64 /bin/bash -c "$(curl -fsSL https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)"'),
                    note("then: /opt/homebrew/bin/brew install python@%s" % ctx.new_python())),
                   "https://docs.brew.sh/Installation", key="brew-arm64",
                   title="Install Homebrew for Apple Silicon in /opt/homebrew (beside the Intel one)"),
        )
    return passed("Homebrew at %s" % ", ".join(prefixes))


@check("macos.python-view", "Python sees the real macOS version", advisory=80)
def macos_python_view(ctx: Context) -> Outcome:
    """`platform.mac_ver()` of the target against `sw_vers` (10.16 / 16.0 compatibility versions; cpython#135675)."""
    if not ctx.is_mac or ctx.interp is None:
        return skipped("not macOS" if not ctx.is_mac else "no interpreter facts")
    seen, real = ctx.interp.mac_ver, ctx.host.macos_version
    if not seen or not real:
        return skipped("a macOS version is unknown")
    if seen.split(".")[0] == real.split(".")[0]:
        return passed("Python and sw_vers agree: macOS %s" % real)
    # Python built against an old SDK sees 10.16 for macOS 11+, and 16.x for 26.x (cpython#135675, packaging tags.py).
    return warned(
        "Python reports macOS %s while sw_vers says %s" % (seen, real),
        Remedy("platform.mac_ver() of %s answers %s." % (ctx.target.python, seen),
               "This Python was built against an old macOS SDK; pip may pick wrong wheel tags and old code paths. "
               "A current Python build sees the real version.",
               (new_environment(ctx, arm64=bool(ctx.host.hw_arm64)),),
               "https://github.com/python/cpython/issues/135675", key="new-python-build"),
    )
