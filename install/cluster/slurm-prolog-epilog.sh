#!/bin/sh
# mps-doctor as a Slurm Prolog or Epilog (slurm.conf: Prolog= and Epilog=, or a file in a Prolog directory).
#
# Slurm's contract (https://slurm.schedmd.com/prolog_epilog.html and slurm.conf(5)): slurmd runs the Prolog before
# a job's first step on the node and the Epilog after the job, as SlurmdUser (root), with no search path and
# neither stdin nor a terminal. A nonzero exit status of the Epilog sets the node to DRAIN; of the Prolog too, and
# the job is requeued (held, unless SchedulerParameters=nohold_on_prolog_fail). What they print reaches no user.
#
# So this script exits 1 only when the node's PyTorch environment is broken (mps-doctor-health.sh: not ready, or
# timed out), and logs the reason (syslog, tag mps-doctor, and stderr for slurmd's log); Slurm drains the node, and
# `scontrol show node` shows Slurm's reason ("Prolog error"; the log has ours). It exits 0 when the node is ready,
# and also when the check itself could not run (exit 2 of mps-doctor-health.sh: no configuration, a missing
# mps-doctor): a checker's own trouble never drains a node; the log says it.
#
# Runs as:      root (SlurmdUser). Install it beside mps-doctor-health.sh; both belong to root.
# Finds Python: through mps-doctor-health.sh and its /etc/mps-doctor/health.conf (MPS_DOCTOR_HEALTH_CONFIG).
# Time limit:   that of mps-doctor-health.sh (time_limit=, 120 s by default) plus 10 s: keep Slurm's
#               PrologEpilogTimeout above it.
# Changes:      nothing (Slurm drains the node on exit 1).
PATH=/usr/bin:/bin:/usr/sbin:/sbin
export PATH

line=$("$(dirname "$0")/mps-doctor-health.sh")
status=$?
case $status in
  0) exit 0 ;;
  1) verdict="the node is drained" ;;
  *) verdict="not checked, the node stays up" ;;
esac
logger -t mps-doctor -- "${SLURM_SCRIPT_CONTEXT:-prolog/epilog} job ${SLURM_JOB_ID:-?}: $line ($verdict)" 2>/dev/null
printf 'mps-doctor: %s (%s)\n' "$line" "$verdict" >&2
[ "$status" = 1 ] && exit 1
exit 0
