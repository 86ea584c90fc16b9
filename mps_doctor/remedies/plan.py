"""Build the fix plan: the checks' remedies, as ordered, safe commands for this setup's manager and shell.

The checks say what fixes each result (actions: install torch, a new environment, a variable, a command); this module
alone knows how that is done with pip, uv or conda, in a venv, a conda environment or a PEP 668 Python. Safe by
construction: no sudo, no deletion (new environments go beside the old ones), no download-and-run without saying so
(and then only as a comment), torch and torchvision always pinned together.
"""

import os
import sys
from dataclasses import replace
from typing import Dict, List, Optional, Tuple

from mps_doctor.checking.model import (
    CheckAgain,
    CheckResult,
    Cmd,
    InstallPackages,
    InstallTorch,
    NewEnvironment,
    Policy,
    Status,
    Task,
    activate_venv,
    note,
    run,
)
from mps_doctor.errors import UsageError
from mps_doctor.nvidia import minimum_driver
from mps_doctor.release_choice import ReleaseChoice, cuda_index, new_environment
from mps_doctor.remedies.environments import NEW_ENV_TORCH, create_env, venv_python
from mps_doctor.remedies.model import Plan, Step
from mps_doctor.remedies.setup import Setup, detect_setup
from mps_doctor.report import Report
from mps_doctor.versions import Release, admits, load_releases, minor_of, requirement, satisfies, version_tuple

# How a plan for another machine (a saved report, a paste) starts mps-doctor: by name, installed there as the README
# says; never this machine's path to it.
OTHER_MACHINE_DOCTOR = ("mps-doctor",)


class Planner:
    """Accumulates steps for one report; `python` follows the environment the later steps should use."""

    def __init__(self, report: Report, setup: Setup, torch_pin: Optional[str], index: Optional[str],
                 doctor: Tuple[str, ...] = ("mps-doctor",)):
        self.report, self.setup, self.doctor = report, setup, doctor
        self.releases = load_releases()
        self.choice = ReleaseChoice(report.facts, report.options, self.releases)
        self.torch_pin, self.index = torch_pin, index
        self.policy = report.options.policy
        self.pinned: Optional[Release] = pinned_release(torch_pin, self.policy) if torch_pin else None
        self.python = report.facts.target.python
        self.new_python: Optional[str] = None
        self.steps: List[Step] = []
        self.arch_prefix: Tuple[str, ...] = ()
        self.fixing = ""
        self.verify_device = report.options.requested_device
        self.verify_device_chosen = False
        self.verify_timeout: Optional[float] = None
        self.verify_fixes: Tuple[str, ...] = ()
        self.installs: Dict[str, Tuple[Cmd, InstallTorch]] = {}

    def add(self, key: str, title: str, reason: str, *commands: Cmd) -> None:
        """A step fixing the current result; a step with KEY already planned, or whose commands all are (or whose notes
        are the same), is not repeated but marked as fixing it too."""
        same_key = [index for index, step in enumerate(self.steps) if step.key == key]
        for index in same_key:
            self.mark(index)
        if same_key:
            return
        runs = {command for command in commands if command.kind != "note"}
        # The same notes again (a catalogue message that is both the root cause and an advisory) are one step.
        same_notes = [index for index, step in enumerate(self.steps) if not runs and commands and step.commands == commands]
        for index in same_notes:
            self.mark(index)
        if same_notes:
            return
        for index, step in enumerate(self.steps):
            if runs & set(step.commands):
                self.mark(index)
        planned = {command for step in self.steps for command in step.commands}
        fresh = tuple(command for command in commands if command.kind == "note" or command not in planned)
        if runs and not any(command.kind != "note" for command in fresh):
            return
        self.steps.append(Step(key, title, reason, fresh, (self.fixing,) if self.fixing else ()))

    def mark(self, index: int) -> None:
        """Record that step INDEX fixes the current result too."""
        step = self.steps[index]
        if self.fixing and self.fixing not in step.fixes:
            self.steps[index] = replace(step, fixes=step.fixes + (self.fixing,))

    def has(self, key: str) -> bool:
        return any(step.key == key for step in self.steps)

    def pins(self, release: Optional[Release], audio: bool = False) -> Tuple[str, ...]:
        """torch and torchvision requirements, pinned together within the team's specifiers, and torchaudio with AUDIO
        (an explicit --torch wins)."""
        if self.pinned is not None:
            pins = ("torch==%s" % self.torch_pin,
                    requirement("torchvision", self.pinned.torchvision_pin, self.policy.torchvision))
            release = self.pinned
        else:
            release = release or self.choice.release_to_install() or self.releases.current
            pins = release.pip_args(self.policy.torch, self.policy.torchvision)
        return pins + ((release.torchaudio_requirement(self.releases.torchaudio_stable_abi_from),) if audio else ())

    def index_args(self, cuda_build: Optional[str] = None) -> Tuple[str, ...]:
        """--index-url for this platform (cpu or cuXYZ on Linux, PyPI on macOS), unless --index-url/--pypi said otherwise."""
        if self.index is not None:
            return ("--index-url", self.index) if self.index else ()
        url = self.choice.index_url(cuda_build)
        return ("--index-url", url) if url else ()

    def ensure_installable(self) -> None:
        """Before the first install into an interpreter that is not a virtual environment and is externally managed
        (PEP 668: pip refuses, e.g. Homebrew's or a distribution's Python), create a venv with it and use that."""
        if self.new_python is not None or self.setup.env_kind != "none" or not self.setup.externally_managed:
            return
        folder = ".venv"
        self.add("create-venv", "Create a virtual environment %s with this Python" % folder,
                 "%s is externally managed (PEP 668): pip refuses to install into it." % self.python,
                 run(self.python, "-m", "venv", folder))
        self.python = self.new_python = venv_python(self.report.facts.host, folder)
        self.add("switch", "Use the new environment", "Activate it in every shell where you train.",
                 activate_venv(folder))

    def pip(self, *args: str, force: bool = False) -> Cmd:
        """`pip install ARGS` into the current environment with the user's manager."""
        self.ensure_installable()
        if self.setup.manager == "uv":
            # uv creates venvs without pip (docs.astral.sh/uv/pip/environments); its own installer targets them.
            return run("uv", "pip", "install", "--python", self.python, *(("--reinstall",) if force else ()), *args)
        return run(*self.arch_prefix, self.python, "-m", "pip", "install", *(("--force-reinstall",) if force else ()),
                   *args)

    def resolved(self, action: InstallTorch) -> Tuple[Optional[Release], Optional[str], str]:
        """(table row or None for the release for this machine, CUDA build, torch version named) that ACTION installs:
        under --torch the pinned release; a release the team's policy does not allow is replaced by the one it allows
        here; from the CUDA build that covers this GPU and driver for the release installed."""
        release = self.releases.row_for(action.torch)[0] if action.torch else None
        if self.pinned is None and release is not None and not self.choice.allows(release):
            release = self.choice.release_to_install()
        cuda = self.choice.cuda_build(self.pinned or release, action.cuda, action.torch)
        driver = self.choice.driver_cuda()
        if cuda and driver and self.pinned is None and version_tuple(cuda) > version_tuple(driver):
            # A build newer than the driver's CUDA would not load: the newest release with a build the driver runs.
            fits = self.choice.release_for_driver()
            release, cuda = fits if fits is not None else (release, cuda)
        torch = self.torch_pin or (release or self.choice.release_to_install() or self.releases.current).torch
        return release, cuda, torch

    def allowed(self, action: InstallTorch) -> bool:
        """Whether the release ACTION installs is one the team's policy allows (--torch was checked against it)."""
        if self.pinned is not None:
            return True
        release = self.resolved(action)[0] or self.choice.release_to_install() or self.releases.current
        return self.choice.allows(release)

    def install_torch(self, action: InstallTorch) -> Cmd:
        """The install command of ACTION, from its index; recorded as this environment's torch install."""
        release, cuda, _ = self.resolved(action)
        command = self.pip(*self.pins(release, action.audio), *self.index_args(cuda), force=action.force)
        self.installs.setdefault(self.python, (command, replace(action, cuda=cuda)))
        return command

    def planned_install(self, action: InstallTorch) -> Optional[int]:
        """The step that already installs torch into this environment, a release the team's policy allows (a plan
        installs one per environment), from the CUDA index ACTION needs, as forcefully and with torchaudio where
        ACTION asks for them; None if none does."""
        cuda = self.resolved(action)[1]
        command, earlier = self.installs.get(self.python, (None, None))
        if earlier is None or (cuda or earlier.cuda) != earlier.cuda or (action.force and not earlier.force) or (
                action.audio and not earlier.audio):
            return None
        return next((i for i, step in enumerate(self.steps) if command in step.commands), None)

    def policy_blocks(self, reason: str) -> Tuple[Cmd, ...]:
        """In place of an install the team's policy does not allow: a new environment with a Python that gets a
        release it allows, else a note that none installs here."""
        if self.choice.new_environment_python() is not None:
            create_env(self, new_environment(self.choice, arm64=self.choice.is_mac and bool(self.report.facts.host.hw_arm64)),
                       reason)
            return ()
        limits = ", ".join("%s %s" % item for item in (("torch", self.policy.torch), ("torchvision", self.policy.torchvision))
                           if item[1])
        return (note("no torch release that installs here meets the team's %s: see mps-doctor policy show" % limits),)

    def install_title(self, actions) -> str:
        """The title of a step that installs the first InstallTorch of ACTIONS, naming what it installs; '' if none."""
        action = next((a for a in actions if isinstance(a, InstallTorch)), None)
        if action is None:
            return ""
        _, cuda, torch = self.resolved(action)
        if cuda:
            return "Reinstall torch %s from the CUDA %s index, pinned with torchvision" % (torch, cuda)
        return "%s torch %s and torchvision, pinned together" % ("Reinstall" if action.force else "Install", torch)

    def commands(self, action, reason: str = "") -> Tuple[Cmd, ...]:
        """The commands that carry out one action inside a step (REASON: why its remedy is needed)."""
        if isinstance(action, InstallTorch):
            if self.has(NEW_ENV_TORCH) and self.new_python is not None and not action.cuda:
                self.mark(next(i for i, step in enumerate(self.steps) if step.key == NEW_ENV_TORCH))
                return ()
            if not self.allowed(action):
                return self.policy_blocks(reason)
            planned = self.planned_install(action)
            if planned is not None:
                self.mark(planned)
                return ()
            return self.driver_first(action) + (self.install_torch(action),)
        if isinstance(action, InstallPackages):
            index = ("--index-url", cuda_index(action.cuda)) if action.cuda else ()
            return (self.pip(*(("--upgrade",) if action.upgrade else ()), *action.packages, *index),)
        if action.kind == "doctor":
            # `mps-doctor policy show` shows the policy file this run read, from any folder.
            policy = self.repeated(strict=False) if action.argv[:1] == ("policy",) else ()
            return (run(*self.doctor, *action.argv, *policy),)
        return (action,)

    def driver_first(self, action: InstallTorch) -> Tuple[Cmd, ...]:
        """A note to update the NVIDIA driver before an install whose CUDA build is newer than the driver runs (no
        release of the table has a build it runs), with the driver that build needs (NVIDIA's table)."""
        cuda, driver = self.resolved(action)[1], self.choice.driver_cuda()
        if not (cuda and driver and version_tuple(cuda) > version_tuple(driver)):
            return ()
        host = self.report.facts.host
        installed = host.nvidia_smi.driver_version if host.nvidia_smi else None
        # Windows numbers its drivers with two parts (475.14), Linux with three (535.104.05): NVIDIA's table.
        system = host.system if host.system in ("Linux", "Windows") else (
            "Windows" if installed and installed.count(".") == 1 else None)
        minimum = minimum_driver(cuda, system)
        needs = "driver %s or newer" % minimum if minimum else "a newer driver"
        return (note("update the NVIDIA driver first: it runs CUDA up to %s, and this CUDA %s build needs %s "
                     "(nvidia-smi shows the driver)" % (driver, cuda, needs)),)

    def check_again(self, action: CheckAgain) -> None:
        """Fold ACTION into the closing check: the first device or timeout asked for wins."""
        if action.device and not self.verify_device_chosen:
            self.verify_device, self.verify_device_chosen = action.device, True
        if action.timeout and self.verify_timeout is None:
            self.verify_timeout = action.timeout
        if self.fixing and self.fixing not in self.verify_fixes:
            self.verify_fixes += (self.fixing,)

    def fix(self, result: CheckResult) -> None:
        """The steps of RESULT's remedy, marked as fixing it."""
        remedy = result.remedy
        if remedy is None:
            return
        self.fixing = result.id
        pending: List[Cmd] = []
        title = remedy.title or self.install_title(remedy.actions) or remedy.problem

        def flush() -> None:
            if pending:
                self.add(remedy.key or result.id, title, remedy.why, *pending)
                pending.clear()

        for action in remedy.actions:
            if isinstance(action, Task):
                flush()
                commands = [command for inner in action.actions for command in self.commands(inner, remedy.why)]
                # Under --torch the task installs the pinned release, whatever release its title names.
                installs = self.install_title(action.actions) if self.pinned is not None else ""
                if commands:
                    self.add(action.key, "Or: %s%s (--torch)" % (installs[:1].lower(), installs[1:]) if installs
                             else action.title, action.reason or remedy.why, *commands)
            elif isinstance(action, NewEnvironment):
                flush()
                create_env(self, action, remedy.why)
            elif isinstance(action, CheckAgain):
                self.check_again(action)
            else:
                pending.extend(self.commands(action, remedy.why))
        flush()
        self.fixing = ""

    def drop_moot_installs(self) -> None:
        """In a plan that moves to a new environment with torch in it, the torch installs into the old environment are
        moot: they are dropped, and the new environment's steps fix their results."""
        if not self.has(NEW_ENV_TORCH):
            return
        old = {command for python, (command, _) in self.installs.items() if python != self.new_python}
        moot = [step for step in self.steps if step.key != NEW_ENV_TORCH and step.commands and all(
            command in old for command in step.commands)]
        fixes = tuple(dict.fromkeys(result for step in moot for result in step.fixes))
        self.steps = [replace(step, fixes=tuple(dict.fromkeys(step.fixes + fixes)))
                      if step.key in ("create-env", NEW_ENV_TORCH, "switch") else step
                      for step in self.steps if step not in moot]

    def repeated(self, strict: bool = True) -> Tuple[str, ...]:
        """The options a command of the plan that runs mps-doctor again repeats (Options.repeated): the policy file
        this run read only in a plan for this machine."""
        return self.report.options.repeated(here=not for_other_machine(self.report), strict=strict)

    def verify(self) -> None:
        """The closing step: check again, in the environment the plan ends in, with the policy file this run read
        (on this machine: another machine's is unknown) and --strict as the run was, so that it judges as this run
        did from any folder."""
        device = ("--device", self.verify_device) if self.verify_device != "auto" else ()
        timeout = ("--timeout", "%g" % self.verify_timeout) if self.verify_timeout else ()
        title = "Check again with a longer --timeout" if timeout else "Check again"
        self.fixing = ""
        self.steps.append(Step("verify", title, "Confirms the fix and shows the next problem, if any.",
                               (run(*self.doctor, "check", "--python", self.new_python or self.python, *device,
                                    *timeout, *self.repeated()),), self.verify_fixes))


def pinned_release(torch_pin: str, policy: Optional[Policy] = None) -> Release:
    """The release table's row for `--torch TORCH_PIN`; a UsageError naming the known range when there is none, or
    the team's requirement when POLICY's torch or torchvision specifier leaves it out."""
    releases = load_releases()
    row, exact = releases.row_for(torch_pin) if minor_of(torch_pin) else (None, False)
    if row is None or not exact:
        known = "torch %s to %s (release table of %s)" % (releases.releases[0].torch, releases.releases[-1].torch,
                                                          releases.updated)
        if minor_of(torch_pin) is None:
            raise UsageError("--torch %s: not a version such as %s" % (torch_pin, releases.current.torch + ".0"))
        raise UsageError("--torch %s: not a release mps-doctor knows; it knows %s" % (torch_pin, known))
    if policy is not None and policy.torch and not satisfies(torch_pin, policy.torch):
        raise UsageError("--torch %s: the team's policy%s requires torch %s" % (
            torch_pin, " in %s" % policy.source if policy.source else "", policy.torch))
    if policy is not None and not admits(policy.torchvision, row.torchvision_pin):
        raise UsageError("--torch %s: its torchvision %s is not the team's torchvision %s%s" % (
            torch_pin, row.torchvision_pin, policy.torchvision, " (%s)" % policy.source if policy.source else ""))
    return row


def doctor_command() -> Tuple[str, ...]:
    """This mps-doctor as a command that still works after the plan activates another environment: the absolute
    path of its console script, else `<its python> -m mps_doctor`."""
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(script) == "mps-doctor" and os.path.isfile(script):
        return (script,)
    return (sys.executable, "-m", "mps_doctor")


def for_other_machine(report: Report) -> bool:
    """Whether a plan for REPORT runs on another machine: a saved report's or a paste's, where this machine's paths
    (this doctor, its policy file) mean nothing."""
    return bool(report.options.replayed_from) or report.source is not None


def doctor_for(report: Report) -> Tuple[str, ...]:
    """How a plan for REPORT starts mps-doctor: by name for a saved report or a paste (the plan runs on that
    machine, where this doctor's paths mean nothing), else this doctor as doctor_command() spells it."""
    if for_other_machine(report):
        return OTHER_MACHINE_DOCTOR
    return doctor_command()


def build_plan(report: Report, manager: Optional[str] = None, shell: Optional[str] = None,
               torch_pin: Optional[str] = None, index: Optional[str] = None,
               doctor: Optional[Tuple[str, ...]] = None) -> Plan:
    """The plan for REPORT: the root cause's remedy first, then the other failures', then the unaccepted warnings',
    each step marked with the results it fixes; empty when nothing fails or warns. DOCTOR is how its steps start
    mps-doctor (default: doctor_for(REPORT))."""
    setup = detect_setup(report.facts, manager, shell)
    planner = Planner(report, setup, torch_pin, index, doctor or doctor_for(report))
    root = report.result(report.verdict.root_cause) if report.verdict.root_cause else None
    first = (root,) if root is not None and root.status in (Status.FAIL, Status.TIMEOUT) else ()
    for result in first + tuple(r for r in report.results if r not in first):
        if result.status in (Status.FAIL, Status.TIMEOUT) or (result.status == Status.WARN and not result.accepted):
            planner.fix(result)
    planner.drop_moot_installs()
    if planner.steps or planner.verify_fixes:
        planner.verify()
    failed = any(result.status in (Status.FAIL, Status.TIMEOUT) for result in report.results)
    return Plan(steps=tuple(planner.steps), shell=planner.setup.shell, manager=planner.setup.manager,
                setup_summary=setup.describe(), verdict=report.verdict.summary,
                target_python=report.facts.target.python, new_python=planner.new_python,
                unfixable=failed and not planner.steps)
