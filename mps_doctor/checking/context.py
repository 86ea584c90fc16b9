"""What every check reads: the facts, the options and the release table's choice for them, with shared helpers."""

from dataclasses import dataclass

from mps_doctor.checking.model import CheckAgain, Outcome, Remedy, doctor, timed_out, warned
from mps_doctor.facts import Target, longer_timeout, stage_work
from mps_doctor.release_choice import ReleaseChoice
from mps_doctor.timeouts import CHECK_TIMEOUT_MAX as MAX_TIMEOUT
from mps_doctor.versions import Release

PYTORCH_MPS_DOCS = "https://docs.pytorch.org/docs/stable/notes/mps.html"
CUDA_DOCS = "https://docs.pytorch.org/docs/stable/notes/cuda.html"
GET_STARTED = "https://pytorch.org/get-started/locally/"


@dataclass(frozen=True)
class Context(ReleaseChoice):
    """The inputs of a check (facts, options, release table) and the release choice for them; checks never look
    anywhere else."""

    @property
    def target(self) -> Target:
        return self.facts.target

    def python_label(self) -> str:
        """'Python 3.11.7 (arm64)', leaving out what is unknown ('the Python (arm64)' from a paste without the version),
        or 'the target Python'."""
        if not self.interp:
            return "the target Python"
        version, machine = ".".join(map(str, self.interp.version)), self.interp.machine
        named = "Python %s" % version if version else "the Python"
        return named + (" (%s)" % machine if machine else "") if version or machine else "the target Python"

    def torch_imported(self) -> bool:
        return bool(self.torch and self.torch.installed and self.torch.import_error is None and self.torch.version)

    def device_docs(self) -> str:
        """PyTorch's notes on the device checked: MPS, CUDA semantics, else installing PyTorch (the CPU)."""
        return {"mps": PYTORCH_MPS_DOCS, "cuda": CUDA_DOCS}.get(self.device, GET_STARTED)

    def newest_words(self) -> str:
        """How the output names the newest release it offers: 'the newest for this machine', or the team's limit."""
        return "the newest the team's policy allows here" if self.limits_torch() else "the newest for this machine"

    def current_words(self, release: Release) -> str:
        """How the output names RELEASE, the newest it offers: 'current torch 2.15', or 'the team's torch 2.13'."""
        return ("the team's torch %s" if self.limits_torch() and self.allows(release) else "current torch %s") % (
            release.torch)


def timeout_outcome(ctx: Context) -> Outcome:
    """A probe stage that ran out of --timeout: its own outcome, neither passed nor failed, since nothing shows either
    way; it says what was still running, and the remedy is more time, never a reinstall."""
    failure = ctx.target.failure
    allowed = failure.timeout_seconds or 0
    doing = stage_work(failure.stage, ctx.device)
    return timed_out(
        "stopped after the --timeout of %g s while %s" % (allowed, doing),
        Remedy("mps-doctor stopped %s after the --timeout of %g s, while it was still %s." % (
                   ctx.target.python, allowed, doing),
               "A timeout shows neither a fault nor a working setup: a first import after installing, a busy or network "
               "disk, or a sleeping machine can take this long, and a step that hangs looks the same until more time "
               "has passed. Check again with more time (--timeout SECONDS, at most %d); if it stops at the same step "
               "again, that step hangs." % MAX_TIMEOUT,
               (CheckAgain(timeout=longer_timeout(allowed, MAX_TIMEOUT)),), key="probe-timeout",
               title="Check again with a longer --timeout"),
        *(("stderr: " + failure.stderr_tail,) if failure.stderr_tail else ()),
    )


def unknown_release(ctx: Context, version: str, consequence: str) -> Outcome:
    """A warning that torch VERSION is newer than every row of the release table, so runtime facts decide."""
    newest = ctx.releases.releases[-1].torch
    return warned(
        "torch %s has no row in mps-doctor's release table (newest: %s): %s" % (version, newest, consequence),
        Remedy("This mps-doctor's data/torch_releases.json ends at torch %s." % newest,
               "A newer mps-doctor knows the new release's Python range, macOS minimum and companions: update it from "
               "where your team installs it (a newer checkout, wheel file or pinned git URL; never a name on a package "
               "index, where no mps-doctor is published); `--version` shows the table's date and newest row. Until "
               "then the installed torch's own answers are used.", (doctor("--version"),), key="upgrade-doctor"),
        rule="no row for torch %s in torch_releases.json" % version,
    )
