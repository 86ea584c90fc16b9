"""Diagnose a target: probe it (or load a saved report's facts) and run the checks into a Report.

The library behind `check`, `fix` and `policy init`: one DiagnosisRequest in, one Report out.
"""

import json
import sys
from dataclasses import dataclass, field
from typing import Callable, Optional, Tuple

from mps_doctor.checking.model import COMMAND_LINE_SKIP, Options
from mps_doctor.checking.registry import REGISTRY, all_checks, device_work_checks
from mps_doctor.devices import check_replay_device
from mps_doctor.errors import ReportFormatError, UsageError
from mps_doctor.facts import Facts, Target
from mps_doctor.inputs import read_input
from mps_doctor.policy import Policy, load_policy, policy_file
from mps_doctor.probe.collect import collect_facts
from mps_doctor.probe.host import collect_host
from mps_doctor.report import Report, facts_from_report, run_checks
from mps_doctor.secrets import scrub_values
from mps_doctor.timeouts import CHECK_TIMEOUT_DEFAULT


@dataclass(frozen=True)
class DiagnosisRequest:
    """What to diagnose and how; None for `device` or `quick` means "as the saved report was, else the default"."""

    # auto, mps, cpu or cuda; None: the saved report's device with from_report, else auto.
    device: Optional[str] = None
    # The interpreter to probe; None: the user's environment (probe.default_target.default_python).
    python: Optional[str] = None
    # A saved JSON report whose facts are checked again instead of probing this machine ('-': stdin).
    from_report: Optional[str] = None
    # The bytes of from_report when the caller has read them already (stdin can be read once).
    from_data: Optional[bytes] = None
    # Skip the training smoke step; None: the saved report's setting with from_report, else False.
    quick: Optional[bool] = None
    # Seconds the target interpreter may take (torch import, parity and smoke).
    timeout: float = CHECK_TIMEOUT_DEFAULT
    # The policy file; None: the nearest pyproject.toml's [tool.mps-doctor], or the saved report's policy.
    config: Optional[str] = None
    # Run only these check ids (empty: all, or the saved report's selection).
    select_ids: Tuple[str, ...] = ()
    # Skip these check ids, on top of the policy's skips.
    skip_ids: Tuple[str, ...] = ()
    # Devices to insist on (--require-device), on top of the policy's.
    required: Tuple[str, ...] = ()
    # Unaccepted warnings make the verdict not ready (a saved report's --strict applies too).
    strict: bool = False
    # Hears each frame of the probe child as it comes (a progress line); not part of what is diagnosed.
    on_frame: Optional[Callable[[dict], None]] = field(default=None, compare=False, repr=False)


def diagnose(request: DiagnosisRequest) -> Report:
    """The report for REQUEST: from a saved report's facts, or by probing; a bad request raises a UsageError."""
    all_checks()
    for check_id in tuple(request.select_ids) + tuple(request.skip_ids):
        if check_id not in REGISTRY:
            raise UsageError("%s: not a check id (see mps-doctor list-checks)" % check_id)
    device = request.device if request.device is not None else "auto"
    quick = bool(request.quick)
    saved = {}
    if request.from_report:
        if request.python is not None:
            raise UsageError("--from and --python cannot be combined: a report's facts are not re-probed")
        facts, saved = load_report(request.from_report, request.from_data)
        if request.device is None:
            device = saved.get("requested_device", saved.get("device", "auto"))
        else:
            selected = set(request.select_ids)
            check_replay_device(facts, device, not selected or bool(selected & set(device_work_checks())))
        if request.quick is None:
            quick = bool(saved.get("quick", False))
    # A replay keeps the report's own policy unless --config names a file here.
    policy = load_policy(request.config) if request.config or not request.from_report else saved["policy"]
    config = policy_file(policy) if request.config or not request.from_report else None
    if request.skip_ids:
        added = tuple((i, COMMAND_LINE_SKIP) for i in dict.fromkeys(request.skip_ids) if not policy.reason_to_skip(i))
        policy = Policy(**dict(policy.__dict__, skip=policy.skip + added))
    select = tuple(request.select_ids) or saved.get("select", ())
    required = tuple(request.required) or saved.get("required", ())
    if not request.from_report:
        facts = collect_facts(request.python, device, smoke=not quick, timeout=request.timeout,
                              policy_devices=tuple(dict.fromkeys(required + policy.devices)), on_frame=request.on_frame)
    return run_checks(facts, Options(device=device, requested_device=device, quick=quick, policy=policy, select=select,
                                     required=required, strict=request.strict or bool(saved.get("strict", False)),
                                     replayed_from=request.from_report, config=config))


def stopped_by(target: Target, device: str) -> Optional[Report]:
    """check's report on TARGET, facts that another command's child gathered (bench's answers the interpreter and
    torch stages as check's does), with this host's facts and the team policy, when it finds a root cause before the
    layers that run work on DEVICE (whose facts only check's child gathers); else None."""
    facts = Facts(host=collect_host(), target=target)
    policy = load_policy()
    report = run_checks(facts, Options(device=device, requested_device=device, policy=policy,
                                       config=policy_file(policy)))
    root = report.result(report.verdict.root_cause) if report.verdict.root_cause else None
    if root is None or root.remedy is None or root.id in device_work_checks():
        return None
    return report


def load_report(path: str, data: Optional[bytes] = None):
    """(facts, options) from a saved JSON report at PATH ('-': stdin), or from DATA already read from it; every
    problem is a one-line ReportFormatError."""
    label = "--from %s" % path
    if data is None:
        try:
            data = read_input(path, sys.stdin, label)
        except UsageError as exc:
            raise ReportFormatError(str(exc))
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ReportFormatError("%s: not a text file" % label)
    except ValueError as exc:
        raise ReportFormatError("%s: not JSON (%s)" % (label, exc))
    except RecursionError:
        raise ReportFormatError("%s: nested too deeply to be a report" % label)
    try:
        # A report may come from anyone (a teammate, an issue): a secret in it is never repeated in what we print.
        return facts_from_report(scrub_values(doc))
    except RecursionError:
        raise ReportFormatError("--from %s: nested too deeply to be a report" % path)
    except ReportFormatError as exc:
        raise ReportFormatError("--from %s: %s" % (path, exc))
