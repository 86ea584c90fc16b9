"""The one catalogue of facts: each fact's path, type, place in `facts.Facts`, words for people, and what supplies it.

A parser of pasted text emits these paths (`triage.model.Finding`), a check names them in `@check(facts=...)`, triage
builds `facts.Facts` from them (`facts_from_values`) and says what a paste lacks in their words (`label`), and
docs/report-format.md's table of facts is written from them (`markdown_table`); tests hold all four to this list.
"""

from dataclasses import dataclass
from typing import Any, Dict, Iterator, Mapping, Optional, Tuple

# The values a fact can have, as the JSON of a triage report's `source.facts` shows them.
KINDS = {
    "text": "a string",
    "flag": "true or false",
    "version": "a Python version as numbers, e.g. [3, 11, 4]",
    "number": "an integer",
    "texts": "a list of strings",
}

# Who supplies facts: the probe of this machine, and the parsers of pasted text (`triage/parsers`, named as in a
# triage report's `source.facts[].parser`).
PROBE = "probe"


@dataclass(frozen=True)
class Fact:
    """One fact: PATH as parsers and checks name it, its KIND, its FIELD in `facts.Facts` (a dotted attribute path;
    a trailing `[]` is one key of a mapping, named by the path's last part), the LABEL people read, and SUPPLIERS.
    A fact without a field is read from pastes only, for triage's own reasoning (NOTE says what for)."""

    path: str
    kind: str
    label: str
    field: Optional[str]
    suppliers: Tuple[str, ...]
    note: str = ""
    copied: bool = True  # False: the field is set by a rule of the builder (triage/engine.build_facts), not copied

    @property
    def family(self) -> bool:
        """Whether the path names a family of facts, one per key (`env.NAME`, `packages.NAME`)."""
        return self.path.endswith(".*")


COLLECT_ENV = ("collect_env", "lightning", "hf-env")
FACTS: Tuple[Fact, ...] = (
    Fact("host.system", "text", "the operating system", "host.system",
         (PROBE,) + COLLECT_ENV + ("sw_vers", "uname", "platform", "wheel", "uv", "pip", "conda-info", "conda-plan", "session", "prose",
                                                        "template", "path", "windows", "build")),
    Fact("host.release", "text", "the kernel release", "host.release", (PROBE, "uname", "platform") + COLLECT_ENV),
    Fact("host.macos_version", "text", "the macOS version", "host.macos_version",
         (PROBE,) + COLLECT_ENV + ("sw_vers", "prose", "template")),
    Fact("host.macos_build", "text", "the macOS build", "host.macos_build", (PROBE, "sw_vers")),
    Fact("host.hw_arm64", "flag", "the Mac's chip", "host.hw_arm64",
         (PROBE,) + COLLECT_ENV + ("shell", "prose", "platform", "conda-plan", "path", "build")),
    Fact("host.cpu_brand", "text", "the CPU", "host.cpu_brand", (PROBE,) + COLLECT_ENV + ("prose",)),
    Fact("host.cpu_arch", "text", "the CPU's architecture", None, ("collect_env",),
         "collect_env's `Architecture:` row; shown with the facts read"),
    Fact("torch.cuda_shown", "flag", "a message only a CUDA build of torch prints", None, ("catalogue",),
         "a catalogue entry marked cuda_build_only matched: the build has CUDA, so triage never suspects a CPU build"),
    Fact("shell.machine", "text", "the machine the shell runs as", None, ("shell",),
         "`uname -m` or `arch` as pasted: arm64 names Apple Silicon (host.hw_arm64); x86_64 or i386 is an Intel Mac or a "
         "shell under Rosetta, which the shell's answer cannot tell apart, so it decides nothing alone"),
    Fact("host.distro", "text", "the Linux distribution", None, ("collect_env",), "shown with the facts read"),
    Fact("host.linux_container_on_mac", "flag", "a Linux container on a Mac", None, ("uname", "platform", "collect_env"),
         "a `linuxkit` kernel: Docker Desktop's VM on a Mac; shown with the facts read"),
    Fact("env.*", "text", "the environment variable", "host.env[]", (PROBE, "session", "shell")),
    Fact("nvidia_smi.driver_version", "text", "the NVIDIA driver", "host.nvidia_smi.driver_version",
         (PROBE, "nvidia-smi", "windows", "template") + COLLECT_ENV),
    Fact("nvidia_smi.cuda_version", "text", "the driver's CUDA version", "host.nvidia_smi.cuda_version",
         (PROBE, "nvidia-smi", "derived")),
    Fact("nvidia_smi.gpu", "texts", "the GPU's name", "host.nvidia_smi.gpus",
         (PROBE, "nvidia-smi", "cuda-message", "build", "template", "prose") + COLLECT_ENV),
    Fact("nvidia_smi.capability", "texts", "the GPU's compute capability", None, ("cuda-message", "derived"),
         "each GPU's compute capability, as torch's warning states it or by NVIDIA's table of GPUs "
         "(data/nvidia.json); it gives the CUDA devices their capability"),
    Fact("interpreter.version", "version", "the Python version", "target.interpreter.version",
         (PROBE,) + COLLECT_ENV + ("session", "shell", "conda-info", "conda-plan", "pip", "uv", "wheel", "prose", "template",
                                  "build")),
    Fact("interpreter.machine", "text", "the Python's architecture", "target.interpreter.machine",
         (PROBE,) + COLLECT_ENV + ("session", "shell", "platform", "wheel", "uv", "pip", "conda-info", "conda-plan", "prose",
                                   "template", "path")),
    Fact("interpreter.mac_ver", "text", "the macOS version the Python sees", "target.interpreter.mac_ver",
         (PROBE, "platform", "session") + COLLECT_ENV),
    Fact("interpreter.pointer_bits", "number", "the Python's pointer size", "target.interpreter.pointer_bits",
         (PROBE, "collect_env", "prose", "path", "conda-info", "conda-plan")),
    Fact("interpreter.conda_subdir", "text", "the conda platform", "target.interpreter.conda_subdir",
         (PROBE, "conda-info", "conda-plan", "derived")),
    Fact("interpreter.free_threaded", "flag", "whether the Python is a free-threaded build", "target.interpreter.free_threaded",
         (PROBE, "collect_env", "session")),
    Fact("interpreter.conda", "flag", "a conda Python", None, ("collect_env",),
         "a conda-built Python (`| packaged by conda-forge |`); with an x86_64 machine on macOS it derives the subdir"),
    Fact("torch.installed", "flag", "whether torch imports", "target.torch.installed",
         (PROBE,) + COLLECT_ENV + ("session", "build")),
    Fact("torch.import_failed", "flag", "whether torch imports", "target.torch.import_error", (PROBE, "collect_env", "session"),
         "collect_env's `PyTorch version: N/A` beside an installed torch package", copied=False),
    Fact("torch.version", "text", "the installed torch's version", "target.torch.version",
         (PROBE,) + COLLECT_ENV + ("session", "build")),
    Fact("torch.mps_built", "flag", "torch.backends.mps.is_built()", "target.torch.mps_built",
         (PROBE, "collect_env", "session", "derived")),
    Fact("torch.mps_available", "flag", "torch.backends.mps.is_available()", "target.torch.mps_available",
         (PROBE,) + COLLECT_ENV + ("session", "build")),
    Fact("torch.cuda_version", "text", "torch's CUDA version", "target.torch.cuda_version",
         (PROBE,) + COLLECT_ENV + ("session", "build", "prose", "template", "before-fix")),
    Fact("torch.wheel_cuda", "text", "the wheel's CUDA build", "target.torch.cuda_version", ("wheel",),
         "the `+cuXYZ` of an installed wheel's file name, when no torch reports its own", copied=False),
    Fact("torch.cuda_available", "flag", "torch.cuda.is_available()", "target.torch.cuda_available",
         (PROBE,) + COLLECT_ENV + ("session", "build", "cuda-message", "prose")),
    Fact("torch.cuda_arch_list", "texts", "the wheel's CUDA architectures", "target.torch.cuda_arch_list",
         (PROBE, "cuda-message", "derived", "session")),
    Fact("torch.cuda_devices", "texts", "the CUDA devices torch sees", "target.torch.cuda_devices", (PROBE, "derived"),
         copied=False),
    Fact("packages.*", "text", "the package's version", "target.torch.packages[]",
         (PROBE,) + COLLECT_ENV + ("conda-plan", "pip", "uv", "wheel", "session", "prose", "template", "build")),
    Fact("message", "texts", "a message torch printed", "target.torch.warnings", (PROBE, "catalogue"),
         "the lines of the paste that a catalogue entry matches"),
    Fact("request.cuda_build", "text", "the CUDA build asked for", None, ("pip", "conda-plan", "prose", "build"),
         "a `+cuXYZ`, `pytorch-cuda` or `cudatoolkit` that an install asked for: the paste is about CUDA"),
    Fact("torch.cuda_replaced", "flag", "a CUDA build of torch that an install replaced", None, ("build",),
         "an install told to have replaced a CUDA torch by one without CUDA: the paste is about CUDA"),
    Fact("request.torch", "text", "the torch version an install asks for", None, ("cuda-message",),
         "`pip install torch==X` in the paste: the torch it installs, for the CUDA of its PyPI Linux wheel"),
    Fact("collect_env.format", "text", "the collect_env format", None, ("collect_env",),
         "the torch release whose `collect_env.py` prints the labels found"),
    Fact("device run", "text", "a run on the device (mps-doctor check does it)", "target.parity|target.smoke", (PROBE,),
         "only a run of work on the device decides it; a paste never does", copied=False),
)
BY_PATH: Dict[str, Fact] = {fact.path: fact for fact in FACTS}


def lookup(path: str) -> Optional[Fact]:
    """The catalogue's entry for PATH (a family's member `env.CUDA_VISIBLE_DEVICES` is `env.*`'s), else None."""
    if path in BY_PATH:
        return BY_PATH[path]
    head = path.split(".", 1)[0]
    return BY_PATH.get(head + ".*") if "." in path else None


def label(path: str) -> str:
    """Words for people for PATH, or for the first option of a requirement `a|b`; a family member names its key."""
    first = path.split("|")[0]
    fact = lookup(first)
    if fact is None:
        return first
    return first.split(".", 1)[1] if fact.family and fact.path == "env.*" else fact.label


def requirement_paths(requirement: str) -> Tuple[str, ...]:
    """The paths a check's requirement names: `a|b` (either will do) is two."""
    return tuple(requirement.split("|"))


def read(facts: Any, path: str) -> Any:
    """The value of fact PATH in FACTS (a `facts.Facts`), None where any step is unknown; `a|b` reads the first known."""
    fact = lookup(path)
    if fact is None or fact.field is None:
        raise KeyError("no field for fact %r" % path)
    for option in fact.field.split("|"):
        value: Any = facts
        for step in option.split("."):
            if step.endswith("[]"):
                value = getattr(value, step[:-2], None)
                value = None if value is None else value.get(path.split(".", 1)[1])
            else:
                value = getattr(value, step, None)
            if value is None:
                break
        if value is not None:
            return value
    return None


def arguments_for(values: Mapping[str, Any], containers: Tuple[str, ...]) -> Dict[str, Dict[str, Any]]:
    """The constructor arguments of each of CONTAINERS (`host`, `host.nvidia_smi`, `target.interpreter`,
    `target.torch`) that the facts in VALUES fill by copy; a family fills its mapping, one key per member."""
    arguments: Dict[str, Dict[str, Any]] = {name: {} for name in containers}
    for path, value in values.items():
        fact = lookup(path)
        if fact is None or fact.field is None or not fact.copied:
            continue
        container, _, attribute = fact.field.rpartition(".")
        if container in arguments and attribute.endswith("[]"):
            arguments[container].setdefault(attribute[:-2], {})[path.split(".", 1)[1]] = value
        elif container in arguments:
            arguments[container][attribute] = value
    return arguments


def markdown_table() -> str:
    """docs/report-format.md's table of the facts a paste can supply (generated; tests compare)."""
    rows = ["| fact | value | in the JSON report | read by |", "| --- | --- | --- | --- |"]
    for fact in FACTS:
        place = "`facts.%s`" % fact.field.replace("|", "`, `facts.") if fact.field else "triage only: " + fact.note
        parsers = ", ".join("`%s`" % s for s in fact.suppliers if s != PROBE)
        readers = ("the probe" + (", " if parsers else "") if PROBE in fact.suppliers else "") + parsers
        rows.append("| `%s` | %s | %s | %s |" % (fact.path, KINDS[fact.kind], place, readers))
    return "\n".join(rows) + "\n"


def iter_paths() -> Iterator[str]:
    """Every declared path."""
    return iter(BY_PATH)


if __name__ == "__main__":
    print(markdown_table(), end="")
