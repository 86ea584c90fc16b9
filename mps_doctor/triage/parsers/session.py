"""Interactive Python sessions and shell commands with their output."""

import re
from typing import List, Optional, Sequence, Tuple

from mps_doctor import known_errors
from mps_doctor.known_errors import intents
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import Result, boolean, python_version
from mps_doctor.triage.text import Line, matching

# What a converter of SESSION_CALLS returns for a line that is not the call's output (a warning printed before it).
NO_ANSWER = ""


def cuda_version_output(text: str):
    """torch.version.cuda as printed: '12.1', or None for a build without CUDA; any other line is NO_ANSWER."""
    return None if text == "None" else text if re.fullmatch(r"\d+\.\d+", text) else NO_ANSWER


def arch_list_output(text: str):
    """torch.cuda.get_arch_list() as printed: "['sm_50', ..., 'sm_120', 'compute_120']" as its sm_ entries; any other
    line is NO_ANSWER."""
    if not re.fullmatch(r"\[(?:'(?:sm|compute)_\d{2,3}a?',\s?){0,40}'(?:sm|compute)_\d{2,3}a?'\]", text):
        return NO_ANSWER
    return tuple(re.findall(r"sm_\d{2,3}a?", text))


SESSION_CALLS = (
    (r"torch\.cuda\.get_arch_list\(\)", "torch.cuda_arch_list", arch_list_output),
    (r"torch\.backends\.mps\.is_available\(\)", "torch.mps_available", boolean),
    (r"torch\.backends\.mps\.is_built\(\)", "torch.mps_built", boolean),
    (r"torch\.cuda\.is_available\(\)", "torch.cuda_available", boolean),
    # `print(torch.__version__, torch.cuda.is_available())` prints "1.4.0 True": the version is the first word.
    (r"torch\.__version__", "torch.version",
     lambda v: v.split()[0].strip("'\",") if re.match(r"^['\"]?\d+\.\d+", v) else None),
    (r"torch\.version\.cuda", "torch.cuda_version", lambda v: cuda_version_output(v.strip("'\""))),
    (r"platform\.machine\(\)", "interpreter.machine",
     lambda v: v.strip("'\"") if v.strip("'\"") in ("arm64", "x86_64", "aarch64") else None),
    (r"platform\.processor\(\)", "interpreter.machine", lambda v: {"'arm'": "arm64", "'i386'": "x86_64"}.get(v)),
)


SESSION_LINE = re.compile(r"^Python 3\.|mps|CUDA_VISIBLE_DEVICES|torch\.|platform\.|^python3?(?:\.\d+)? (?:--version|-V)$|"
                          r"^uname -m$|^arch$|^(?:import|from) torch\b|^python[\d.]*(?:\.exe)? -c [\"'](?:import|from) torch\b",
                          re.I | re.M)
# sys.version of a free-threaded build puts "experimental free-threading build" (3.13) or "free-threading build"
# (3.14 on) before the build info (CPython's Python/getversion.c).
FREE_THREADING = r"(?:experimental )?free-threading build"
BANNER = re.compile(r"Python (3\.\d+\.\d+)\S* (%s )?\([^)]*\d{4}, [\d:]+\)(.*)$" % FREE_THREADING)
# Printed checks: "Is MPS (Metal Performance Shader) built? True", "mps_available False" (read without trailing space).
PRINTED = re.compile(r"\bMPS\b[^?:=]{0,40}?\b(built|available)\b\W{0,3}(True|False)$", re.I)


# `import torch` as the whole statement at a REPL prompt, or as the whole code of a `python -c` command: a crash right
# after it is the import's, not a later statement's (`python -c "import torch; x.cuda()"`, `>>> import torch, cv2`).
IMPORT_ONLY = r"(?:import torch(?:\.\w+)*(?: as \w+)?|from torch(?:\.\w+)* import \w+(?: as \w+)?)"
IMPORT_TORCH = re.compile(r"^%s\s*$" % IMPORT_ONLY)
IMPORT_TORCH_COMMAND = re.compile(r"^python[\d.]*(?:\.exe)? -c ([\"'])%s\1\s*$" % IMPORT_ONLY)
# The signal a shell's words (the catalogue's kind fatal-signal) name, by how they begin.
SIGNALS = (("illegal", "an illegal instruction (SIGILL)"), ("segmentation", "a segmentation fault (SIGSEGV)"),
           ("bus", "a bus error (SIGBUS)"), ("abort", "an abort (SIGABRT)"))
IMPORT_CRASHED_KIND = "torch-import-crashed"


def import_crashed(lines: Sequence[Line], index: int) -> List[Evidence]:
    """Evidence against torch's import when the line after `import torch` at INDEX says a fatal signal killed the
    interpreter (jetson-nano-ubuntu-20-image#13: `>>> import torch`, then "Illegal instruction (core dumped)")."""
    line = lines[index]
    if not (line.prompt == "python" and IMPORT_TORCH.match(line.text) or
            line.prompt != "python" and IMPORT_TORCH_COMMAND.match(line.text)):
        return []
    reply = next_output(lines, index)
    crash = known_errors.search(known_errors.FATAL_SIGNAL, reply.text) if reply is not None else None
    if crash is None:
        return []
    signal = next(name for start, name in SIGNALS if crash.group("signal").lower().startswith(start))
    return [Evidence(
        (), "`import torch` killed the interpreter with %s" % signal,
        "The Python process died with %s while it ran `import torch`." % signal,
        "A crash in the import leaves torch unusable. An illegal instruction means a library the import loads uses a CPU "
        "instruction this processor lacks: a build for a newer CPU, or NumPy's OpenBLAS on some ARM boards (the Jetson "
        "Nano's, where OPENBLAS_CORETYPE=ARMV8 is the workaround). A segmentation fault, bus error or abort means a "
        "library it loads is broken or built against another one. `python -X faulthandler -c \"import torch\"` prints "
        "the module the crash is in; reinstall that package for this machine, in a fresh virtual environment.",
        intents({"run": ["python", "-X", "faulthandler", "-c", "import torch"]}),
        "https://docs.python.org/3/library/faulthandler.html", reply.number, "session",
        devices=("mps", "cuda", "cpu"), kind=IMPORT_CRASHED_KIND)]


# Shell commands whose output is a fact: the Python on PATH (`python3 --version` prints "Python 3.12.4") and the
# machine the shell runs as (`uname -m` and `arch`: arm64 only on Apple Silicon, where Linux says aarch64; x86_64 or
# i386 on an Intel Mac or under Rosetta, which the shell's own answer cannot tell apart).
def python_version_output(text: str) -> List[Tuple[str, object]]:
    """(fact, value) of `python --version`'s output."""
    return [("interpreter.version", python_version(text[7:]))] if re.fullmatch(r"Python 3\.\d+\.\d+\S*", text) else []


def machine_output(text: str) -> List[Tuple[str, object]]:
    """(fact, value) of `uname -m`'s or `arch`'s output."""
    if text not in ("arm64", "x86_64", "i386", "aarch64"):
        return []
    return [("shell.machine", text)] + ([("host.system", "Darwin"), ("host.hw_arm64", True)] if text == "arm64" else [])


SHELL_CALLS = (
    (re.compile(r"python3?(?:\.\d+)? (?:--version|-V)"), python_version_output),
    (re.compile(r"uname -m|arch"), machine_output),
)


# A variable the paste sets: `export NAME=value`, `NAME=value command`, `set NAME=value` (cmd), `$env:NAME = "value"`
# (PowerShell), `os.environ["NAME"] = "value"`, `-e NAME=value` (docker), "I set NAME=value". Never a message that
# names one: MPSAllocator.mm's "Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit" and MPSFallback.mm's
# "you can set the environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1`" are torch's advice, not the user's setting.
ENV_SETTING = re.compile(
    r"(?:^(?:export\s+|set\s+|env\s+|%env\s+|\$env:)?|\bos\.environ\[[\"']|\s(?:-e|--env)\s+|^ENV\s+|"
    r"\bI(?:'ve| have)? (?:already )?set (?:the )?(?:environment variable )?`?)"
    r"(CUDA_VISIBLE_DEVICES|PYTORCH_ENABLE_MPS_FALLBACK|PYTORCH_MPS_HIGH_WATERMARK_RATIO)(?:[\"']\])?\s*=\s*[\"']?([\w,.-]*)")


def parse_session(lines: Sequence[Line]) -> Result:
    """A Python session or script run: an expression (after >>> or in print(...)) and its output on the next line,
    the interpreter banner ('Python 3.8.10 (default, ...)'), and `import torch` failing or killing the interpreter."""
    out: List[Finding] = []
    evidence: List[Evidence] = []
    for index, line in matching(lines, SESSION_LINE):
        evidence += import_crashed(lines, index)
        banner = BANNER.match(line.text)
        if banner:
            # The REPL banner: 'Python 3.11.9 (main, Apr  4 2024, 05:10:52) [Clang 14.0.3 ] on darwin'.
            out.append(Finding("interpreter.version", python_version(banner.group(1)), line.number, "session"))
            out.append(Finding("interpreter.free_threaded", bool(banner.group(2)), line.number, "session"))
            rest = banner.group(3) + " " + (lines[index + 1].text if index + 1 < len(lines) else "")
            system = re.search(r"\bon (darwin|linux|win32)\b", rest)
            if system:
                out.append(Finding("host.system", {"darwin": "Darwin", "linux": "Linux", "win32": "Windows"}[system.group(1)],
                                   line.number, "session"))
        printed = PRINTED.search(line.text.rstrip())
        if printed and not line.prompt:
            out += [Finding("torch.mps_" + printed.group(1).lower(), printed.group(2) == "True", line.number, "session"),
                    Finding("torch.installed", True, line.number, "session")]
        for command, read in SHELL_CALLS:
            reply = next_output(lines, index) if command.fullmatch(line.text) else None
            out += [Finding(path, value, reply.number, "shell") for path, value in read(reply.text)] if reply else []
        variable = ENV_SETTING.search(line.text)
        if variable:
            out.append(Finding("env." + variable.group(1), variable.group(2), line.number, "session"))
        out += labelled_outputs(line)
        for pattern, path, convert in SESSION_CALLS if line.prompt == "python" or "print(" in line.text else ():
            if not re.search(pattern, line.text):
                continue
            reply = next_output(lines, index)
            if reply is None:
                continue
            value = convert(re.sub(r"^Out\[\d+\]:\s*", "", reply.text.strip()))
            if value != NO_ANSWER and (value is not None or path == "torch.cuda_version"):
                out.append(Finding(path, value, reply.number, "session"))
                if path in ("torch.mps_available", "torch.mps_built", "torch.cuda_available", "torch.version"):
                    out.append(Finding("torch.installed", True, reply.number, "session"))
    return out, evidence


def labelled_outputs(line: Line) -> List[Finding]:
    """A call printed with its answer on one line, as programs report them ("torch.cuda.is_available(): False" in
    Ultralytics' select_device error, "torch.__version__ = 2.1.0")."""
    if line.prompt:
        return []
    for pattern, path, convert in SESSION_CALLS:
        printed = re.fullmatch(r"\s*(?:%s)\s*[:=]\s*(\S.{0,60})" % pattern, line.text)
        value = convert(printed.group(1).strip()) if printed else NO_ANSWER
        if printed and value != NO_ANSWER and (value is not None or path == "torch.cuda_version"):
            installed = [Finding("torch.installed", True, line.number, "session")] if path != "interpreter.machine" else []
            return [Finding(path, value, line.number, "session")] + installed
    return []


# A warning Python printed between a command and its output (`FILE:LINE: UserWarning: ...`, warnings.formatwarning),
# and the source line it echoes under it (`return torch._C._cuda_getDeviceCount() > 0`, torch/cuda/__init__.py).
WARNING_LINE = re.compile(r"^(?:\S+:\d+: )?\w*Warning: ")
WARNING_SOURCE = re.compile(r"^(?:return |warnings\.warn\()|\btorch\._C\._")


def next_output(lines: Sequence[Line], index: int) -> Optional[Line]:
    """The output line after the command at INDEX (the next non-empty line without a prompt), past warnings."""
    warned = False
    for following in lines[index + 1:index + 6]:
        if following.prompt:
            return None
        if WARNING_LINE.match(following.text) or (warned and WARNING_SOURCE.search(following.text)):
            warned = True
            continue
        if following.text:
            return following
    return None
