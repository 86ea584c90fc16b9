"""What a crafted paste costs `triage` to read, as a ratio to a real paste of the same size, measured in one run.

Target (security review of the triage parsers: a paste is untrusted text up to 5 MiB): every crafted 64 KiB paste
costs at most 3x the real one, so no regex is quadratic in a line or in the paste. Exits 1 when one costs more.
Usage: python benchmarks/paste_cost.py [REPEATS]
"""

import glob
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from mps_doctor.secrets import scrub  # noqa: E402
from mps_doctor.triage.paste import read_paste  # noqa: E402
from mps_doctor.triage.precedents import issue_words, load  # noqa: E402
from mps_doctor.triage.text import MAX_LINE  # noqa: E402

SIZE = 64 * 1024
LIMIT = 3.0
PIP = "ERROR: Could not find a version that satisfies the requirement torch"


def real_paste(size=SIZE):
    """The real pastes of tests/pasted/ and tests/triage/ one after another, cycled until SIZE characters."""
    paths = sorted(glob.glob(os.path.join(ROOT, "tests", "pasted", "*.txt")) +
                   glob.glob(os.path.join(ROOT, "tests", "triage", "*", "*.txt")))
    texts = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            texts.append(handle.read().rstrip("\n") + "\n")
    return fill("".join(texts), size)


def fill(unit, size=SIZE):
    """UNIT repeated to SIZE characters."""
    return (unit * (size // len(unit) + 1))[:size]


def long_line(head, run, tail=""):
    """HEAD, RUN repeated, TAIL: one line of MAX_LINE - 1 characters (the longest that cleaning keeps whole)."""
    width = MAX_LINE - 1 - len(head) - len(tail)
    return head + fill(run, width) + tail + "\n"


# Each builder aims at one pattern (or one kind of line) that a backtracking engine could make quadratic.
CRAFTED = {
    "hf-env key of words and spaces": lambda size: fill(long_line("- ", "a "), size),
    "dash then spaces": lambda size: fill(long_line("-", " ", "x"), size),
    "pip requirement then '('": lambda size: fill(long_line(PIP + " ", "("), size),
    "pip '(from versions:' unclosed": lambda size: fill(long_line(PIP + " ", "(from versions: 1, "), size),
    "pip requirement repeated": lambda size: fill(long_line("", PIP + " "), size),
    "pip requirement of digits": lambda size: fill(long_line(PIP + "==", "1"), size),
    "pip requirement then spaces": lambda size: fill(long_line(PIP, " ", "x"), size),
    "uv no-wheel 'torch' repeated": lambda size: fill(long_line("", "torch"), size),
    "uv no-wheel 'torch ' repeated": lambda size: fill(long_line("", "torch "), size),
    "platform 'Linux-' repeated": lambda size: fill(long_line("", "Linux-"), size),
    "uname head repeated": lambda size: fill(long_line("", "Darwin x 1.1.1 Darwin Kernel Version "), size),
    "uname RELEASE_ARM64 repeated": lambda size: fill(long_line("Darwin x 1.1.1 Darwin Kernel Version ", "RELEASE_ARM64"), size),
    "html '<b' repeated": lambda size: fill(long_line("", "<b"), size),
    "prose torch then spaces": lambda size: fill(long_line("torch", " ", "x"), size),
    "tabs (four spaces each)": lambda size: fill(long_line("torch", "\tx"), size),
    "lightning value with spaces": lambda size: fill(long_line("- a: b", " ", "c"), size),
    "conda value with spaces": lambda size: fill(long_line("platform : a", " ", "b"), size),
    "nvidia-smi row with spaces": lambda size: fill(long_line("| 0 NVIDIA a", " ", "b"), size),
    "collect_env GPU with spaces": lambda size: fill("GPU models and configuration:\n" + long_line("GPU 0: a", " ", "b"), size),
    "collect_env CPU block of short lines": lambda size: "CPU:\n" + fill("x\n", size - 5),
    "session 'MPS ' repeated": lambda size: fill(long_line("", "MPS ", " available True"), size),
    "sw_vers version and build pairs": lambda size: fill("ProductVersion: 16.0\nBuildVersion: 25A1\n", size),
    "word characters": lambda size: fill(long_line("", "a"), size),
    "short lines": lambda size: fill("x\n-\n1.\n:\n- a: b\n$ x\n> x\n<b>\n", size),
    "blank lines": lambda size: fill("\n", size),
    "catalogue undefined symbol": lambda size: fill(long_line("undefined symbol: ", "a"), size),
    "catalogue 'undefined symbol: a ' repeated": lambda size: fill(long_line("", "undefined symbol: a "), size),
    "catalogue from-versions lines": lambda size: fill("requirement torch (from versions: 1\n", size),
    "catalogue conda plan lines": lambda size: fill("Platform: osx-64\nPackagesNotFoundError\n-\n", size),
    "catalogue conda starts repeated": lambda size: fill("Platform: osx-64 " * 35 + "PackagesNotFoundError " * 18 + "-\n", size),
    "catalogue '[WinError 126] ' repeated": lambda size: fill(long_line("", "[WinError 126] "), size),
    "catalogue mpsFileLoc repeated": lambda size: fill(long_line("", 'loc("mps_a"("(mpsFileLoc): MetalPerformanceShadersGraph '), size),
    # Lines that each wrap into the next (known_errors.unwrap joins soft-wrapped lines before the catalogue's search).
    "soft-wrapped '(from versions:' lines": lambda size: fill("requirement torch==1.1.1+cu1 (from versions: a\n", size),
    "soft-wrapped words": lambda size: fill("a\n", size),
    # Secret names (secrets.NAMED_SECRET) and the memory's words (precedents.WORD) among word boundaries at every step.
    "dotted words": lambda size: fill(long_line("", "a."), size),
    "dashed words": lambda size: fill(long_line("", "a-"), size),
    "secret names repeated": lambda size: fill(long_line("", "api_key_token."), size),
    "dotted identifier parts": lambda size: fill(long_line("", "a:b.c:d."), size),
    # Round 12's readings (review12 L3): conda rows in collect_env, a torch release without its patch, Windows Python
    # folders, a torchvision name before an undefined symbol, a program's --device.
    "collect_env '[conda] pytorch' rows": lambda size: fill("[conda] pytorch 1.10.2 py3.7_cuda10.2_cudnn7.6.5_0 pytorch\n", size),
    "'pytorch = 1.' then digits": lambda size: fill(long_line("pytorch = 1.", "1"), size),
    "Windows Python folders repeated": lambda size: fill(long_line("C:", "\\Program Files (x86)\\Python38-32"), size),
    "torchvision then spaces": lambda size: fill(long_line("torchvision", " ", "undefined symbol"), size),
    "'--device cpu ' repeated": lambda size: fill(long_line("", "--device cpu "), size),
    # Round 13's readings: a crash right after `import torch`, `python -c` commands, Debian's dist-packages, the Radeon
    # and lower-case GeForce names, and the catalogue's required text (literals.py) in a paste of its needles.
    "'>>> import torch' then a crash": lambda size: fill(">>> import torch\nzsh: illegal hardware instruction  python\n", size),
    "'python -c import torch ' repeated": lambda size: fill(long_line("", "python -c 'import torch "), size),
    "dist-packages paths repeated": lambda size: fill(long_line("", " /usr/local/lib/python3.1/dist-packages"), size),
    "'rtx 3060 Radeon GPU ' repeated": lambda size: fill(long_line("", "rtx 3060 Radeon GPU "), size),
    "catalogue needles repeated": lambda size: fill(long_line("", "module .dll libcu backend .so. "), size),
}


def crafted_pastes(size=SIZE):
    """{name: crafted paste of SIZE characters}."""
    return {name: build(size) for name, build in CRAFTED.items()}


def reading(text):
    """What triage reads TEXT with: secrets replaced, the paste read, and the memory of confirmed threads asked."""
    read_paste(scrub(text))
    load().likeliest(issue_words(text, "an issue's title"))


def seconds(text):
    """CPU seconds of one reading(TEXT): the process's own time, which other work on a shared machine (a CI run's
    parallel test workers) hardly changes, unlike the wall clock."""
    started = time.process_time()
    reading(text)
    return time.process_time() - started


def ratios(real, crafted, repeats):
    """{name: best seconds of CRAFTED[name] / best seconds of REAL}, each paste read REPEATS times, interleaved."""
    reading(real)
    best = {name: float("inf") for name in ["real", *crafted]}
    for _ in range(repeats):
        best["real"] = min(best["real"], seconds(real))
        for name, text in crafted.items():
            best[name] = min(best[name], seconds(text))
    return {name: best[name] / best["real"] for name in crafted}, best["real"]


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    found, real = ratios(real_paste(), crafted_pastes(), repeats)
    print("real paste: %d KiB in %.1f ms (best of %d)" % (SIZE // 1024, real * 1e3, repeats))
    width = max(map(len, found))
    for name, ratio in found.items():
        print("  %-*s %6.2f x%s" % (width, name, ratio, "  OVER" if ratio > LIMIT else ""))
    worst = max(found, key=found.get)
    print("worst: %s, %.2f x the real paste (target <= %.0f)" % (worst, found[worst], LIMIT))
    return 1 if found[worst] > LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())
