#!/bin/sh
# mps-doctor health check of a cluster node: the one check behind the Slurm prolog and epilog, the LBNL NHC check and
# the Kubernetes Node Problem Detector plugin of install/cluster (install/cluster/README.md).
#
# Contract: the custom plugin protocol of Node Problem Detector (kubernetes/node-problem-detector,
# pkg/custompluginmonitor/plugin/plugin.go: exit 0 OK, 1 NonOK, anything else Unknown; stdout trimmed and cut at
# max_output_length, 80 by default):
#   exit 0   OK: mps-doctor finds the node's PyTorch environment ready on the device
#   exit 1   a problem: not ready, or timed out (torch or the device did not answer within the time limit)
#   exit 2   unknown: the check could not run (no configuration, mps-doctor or Python missing or unsafe, a report
#            too old, the doctor failed)
#   stdout   one line, STATE: DETAIL, printable ASCII, at most max_length characters (default 80); nothing on stderr
# Hardware is not its business: ECC errors, XIDs, NVLink, thermals and memory tests belong to DCGM (dcgmi diag,
# health watches) and, on Kubernetes, the GPU Operator's validator and DCGM exporter. This checks the software above
# them: the driver against torch's CUDA build, what torch sees, and a few operations on the device.
#
# Runs as:      whoever runs it: root under slurmd, NHC and NPD's DaemonSet. As root it runs only programs that
#               only root can change: mps-doctor, the Python, its #! interpreter and the report, and every folder on
#               their way and on the way of where their links lead, belong to root and no one else can write them.
# Finds Python: python= in the configuration: /etc/mps-doctor/health.conf, or the file named by the first argument
#               or MPS_DOCTOR_HEALTH_CONFIG (key=value lines, # comments; root's, writable by no one else). Or
#               report=: judge the JSON report a periodic job wrote (mps-doctor check --format json --output FILE),
#               without importing torch here (fast, for checks that run every minute); older than max_age_minutes=
#               (default 60) is unknown.
# Runs doctor:  mps-doctor check --python PYTHON --device DEVICE --quick --timeout T --format plist (or check --from
#               REPORT --format plist), with an empty environment but HOME, PATH=/usr/bin:/bin:/usr/sbin:/sbin and
#               TERM=dumb, from /: no job's CUDA_VISIBLE_DEVICES, no user's PYTHONPATH.
# Time limit:   120 s (time_limit=): the doctor's own --timeout is 15 s less, then a watchdog stops it (SIGTERM,
#               SIGKILL 10 s later). Keep it below the caller's: Slurm's PrologEpilogTimeout, NHC's -t, NPD's timeout.
# Changes:      nothing. It writes no file; mps-doctor only reads.
#
# Settings: doctor= (default /usr/local/bin/mps-doctor), python=, report=, device=cuda|cpu|mps|auto (default cuda:
# on a GPU node, auto would call a node whose driver broke ready on the CPU), quick=yes|no (default yes),
# time_limit=SECONDS, max_length=CHARACTERS, max_age_minutes=MINUTES.

TIME_LIMIT=120

# --- common: status (the same in every script of install/mdm and install/cluster; tests/integration/test_mdm.py compares) ---
# Only the system's own tools, first; another PATH entry can only add commands the system lacks.
PATH=/usr/bin:/bin:/usr/sbin:/sbin${PATH:+:$PATH}
LC_ALL=C
export PATH LC_ALL
unset CDPATH
TAB=$(printf '\t')
# The most of the doctor's answer that is read: a status is about 2 KiB, a longer answer is no status.
STATUS_CAP=65536
# One line of `mps-doctor check --format plist` (its header, a key, a string or an integer value): nothing else.
STATUS_LINE='^(<\?xml version="1\.0" encoding="UTF-8"\?>|<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1\.0//EN" "http://www\.apple\.com/DTDs/PropertyList-1\.0\.dtd">|<plist version="1\.0">|</?dict>|</plist>|'"$TAB"'<key>[a-z_]{1,40}</key>|'"$TAB"'<string>[^<>[:cntrl:]]*</string>|'"$TAB"'<integer>-?[0-9]{1,19}</integer>)$'

# clean TEXT: TEXT as one line of printable ASCII, at most 240 characters, < and > as ( and ): it cannot end a
# result tag, start a line or reach a terminal as an escape.
clean() {
  printf '%s' "$1" | tr -c ' -~' ' ' | tr '<>' '()' | cut -c 1-240
}

# config_value KEY FILE: the value of the last KEY=value line of FILE (# starts a comment line), blanks trimmed.
config_value() {
  awk -v key="$1" '
    /^[ \t]*(#|$)/ { next }
    { k = $0; sub(/=.*/, "", k); gsub(/^[ \t]+|[ \t]+$/, "", k)
      if (k == key) { v = $0; sub(/^[^=]*=/, "", v); gsub(/^[ \t]+|[ \t]+$/, "", v); value = v } }
    END { printf "%s", value }' "$2"
}

# closed PATH: whether PATH belongs to root or to this user and neither its group nor others can write it.
closed() {
  [ -n "$(find "$1" -prune \( -user 0 -o -user "$(id -u)" \) ! -perm -0020 ! -perm -0002 -print 2>/dev/null)" ]
}

# config_trusted FILE: whether FILE may configure this script: a regular file, not a link, closed, in a closed folder.
config_trusted() {
  [ -f "$1" ] && [ ! -L "$1" ] && closed "$1" && closed "$(dirname "$1")"
}

# physical PATH: PATH with its symbolic links resolved (40 at most), or nothing when a folder on the way is missing.
physical() {
  phys=$1
  phys_links=0
  while [ -L "$phys" ] && [ "$phys_links" -lt 40 ]; do
    phys_target=$(readlink "$phys") || return 1
    case $phys_target in
      /*) phys=$phys_target ;;
      *) phys=$(dirname "$phys")/$phys_target ;;
    esac
    phys_links=$((phys_links + 1))
  done
  phys_dir=$(cd -P "$(dirname "$phys")" 2>/dev/null && pwd -P) || return 1
  printf '%s/%s\n' "${phys_dir%/}" "$(basename "$phys")"
}

# unsafe_part PATH UID [strict]: the first of PATH and the folders above it that someone but root and UID can
# change: one that others can write (strict: its group too, or owned by anyone but root), unless it is a sticky
# folder such as /tmp whose entry on the way belongs to root or UID. A link is judged by where it leads.
unsafe_part() {
  part=$1
  below=
  while :; do
    if [ ! -L "$part" ]; then
      if [ "$3" = strict ]; then
        open=$(find "$part" -prune \( -perm -0020 -o -perm -0002 \) -print 2>/dev/null)
        if [ -z "$(find "$part" -prune -user 0 -print 2>/dev/null)" ]; then
          printf '%s\n' "$part"
          return 0
        fi
      else
        open=$(find "$part" -prune -perm -0002 -print 2>/dev/null)
      fi
      if [ -n "$open" ] && { [ -z "$below" ] || [ -z "$(find "$part" -prune -perm -1000 -print 2>/dev/null)" ] ||
        [ -z "$(find "$below" -prune \( -user 0 -o -user "$2" \) -print 2>/dev/null)" ]; }; then
        printf '%s\n' "$part"
        return 0
      fi
    fi
    [ "$part" = / ] && return 1
    below=$part
    part=$(dirname "$part")
  done
}

# refusal PATH UID [strict]: why PATH may not run for user UID (nothing when it may): a part of it, of where its
# links lead, or of the interpreter its #! line names, can be changed by someone else.
refusal() {
  for candidate in "$1" "$(physical "$1")" "$(head -n 1 "$1" 2>/dev/null | sed -n 's/^#![[:blank:]]*\(\/[^[:blank:]]*\).*/\1/p')"; do
    [ -n "$candidate" ] || continue
    for form in "$candidate" "$(physical "$candidate")"; do
      bad=$(unsafe_part "$form" "$2" "$3")
      if [ -n "$bad" ]; then
        printf '%s is not safe to run: %s can be changed by another user\n' "$1" "$bad"
        return 0
      fi
    done
  done
}

# limited SECONDS COMMAND...: COMMAND's exit status; a watchdog sends it SIGTERM after SECONDS, SIGKILL 10 s later.
limited() {
  limited_seconds=$1
  shift
  "$@" &
  limited_pid=$!
  (
    sleep "$limited_seconds" &
    nap=$!
    trap 'kill "$nap" 2>/dev/null; exit 0' TERM
    wait "$nap"
    kill -TERM "$limited_pid" 2>/dev/null
    sleep 10 &
    nap=$!
    wait "$nap"
    kill -KILL "$limited_pid" 2>/dev/null
  ) </dev/null >/dev/null 2>&1 &
  watchdog=$!
  wait "$limited_pid"
  limited_status=$?
  kill -TERM "$watchdog" 2>/dev/null
  wait "$watchdog" 2>/dev/null
  return "$limited_status"
}

# doctor_answer SECONDS COMMAND...: run COMMAND (limited), its stdout (no more than STATUS_CAP bytes) into ANSWER,
# its exit status into ANSWER_CODE (too-long when the answer was longer), its seconds into ANSWER_SECONDS.
doctor_answer() {
  answer_started=$(date +%s)
  ANSWER=$({ limited "$@" </dev/null 2>/dev/null; printf '\nmps-doctor-exit-status %s\n' "$?"; } | head -c "$STATUS_CAP")
  ANSWER_SECONDS=$(($(date +%s) - answer_started))
  if [ "${#ANSWER}" -ge "$STATUS_CAP" ]; then
    ANSWER_CODE=too-long
    ANSWER=
    return
  fi
  # The last line is this script's own: the doctor's output ended before it was written.
  ANSWER_CODE=$(printf '%s\n' "$ANSWER" | sed -n '$s/^mps-doctor-exit-status \([0-9][0-9]*\)$/\1/p')
  ANSWER=$(printf '%s\n' "$ANSWER" | sed '$d')
  [ -n "$ANSWER_CODE" ] || ANSWER_CODE=too-long
}

# status_value KEY: KEY's value in the status ANSWER (the line after its <key> line), entities decoded.
status_value() {
  printf '%s\n' "$ANSWER" | awk -v key="$1" '
    found { if (sub(/^\t<string>/, "") && sub(/<\/string>$/, "")) { gsub(/&lt;/, "<"); gsub(/&gt;/, ">"); gsub(/&amp;/, "\\&"); print }
            else if (sub(/^\t<integer>/, "") && sub(/<\/integer>$/, "")) { print }
            exit }
    $0 == "\t<key>" key "</key>" { found = 1 }'
}

# read_status LIMIT: STATE and DETAIL from the doctor's ANSWER and ANSWER_CODE, for a run limited to LIMIT seconds.
# STATE is the report's verdict (ready, not-ready, timed-out, doctor-failed) only when the answer is a status whose
# state agrees with the exit status (0, 1, 1, 3); timed-out when the watchdog stopped it; else not-checked.
read_status() {
  STATE=not-checked
  if [ "$ANSWER_CODE" = too-long ]; then
    DETAIL="mps-doctor answered more than $STATUS_CAP bytes: no status"
  elif [ "$ANSWER_CODE" -ge 128 ] && [ "$ANSWER_SECONDS" -ge "$1" ]; then
    STATE=timed-out
    DETAIL="mps-doctor did not finish within the time limit of $1 s"
  elif [ "$(printf '%s\n' "$ANSWER" | grep -Evc "$STATUS_LINE")" != 0 ] ||
    ! printf '%s\n' "$ANSWER" | grep -qx "$TAB<string>mps-doctor-status</string>"; then
    DETAIL="mps-doctor gave no status (exit status $ANSWER_CODE)"
  else
    state=$(status_value state)
    case $ANSWER_CODE:$state in
      0:ready | 1:not-ready | 1:timed-out | 3:doctor-failed) STATE=$state ;;
      *) DETAIL="mps-doctor's state $state does not match its exit status $ANSWER_CODE" ;;
    esac
    root=$(status_value root_cause)
    if [ "$STATE" = not-checked ]; then
      :
    elif [ "$STATE" = ready ] || [ -z "$root" ]; then
      DETAIL=$(status_value summary)
    else
      DETAIL="$root: $(status_value root_cause_summary)"
    fi
  fi
}
# --- end of common: status ---

# health_check CONFIG: STATE and DETAIL of this node (read_status), from the settings in CONFIG.
health_check() {
  STATE=not-checked
  if ! config_trusted "$1"; then
    if [ -e "$1" ]; then
      DETAIL="$1 is ignored: it must belong to root and be writable by no one else"
    else
      DETAIL="no $1"
    fi
    return
  fi
  strict=
  [ "$(id -u)" != 0 ] || strict=strict
  doctor=$(config_value doctor "$1")
  python=$(config_value python "$1")
  report=$(config_value report "$1")
  device=$(config_value device "$1")
  case ${device:=cuda} in
    auto | mps | cpu | cuda) ;;
    *) DETAIL="device=$device is not cuda, cpu, mps or auto" && return ;;
  esac
  limit=$(config_value time_limit "$1")
  case ${limit:=$TIME_LIMIT} in
    '' | *[!0-9]* | ?????*) DETAIL="time_limit=$limit is not a number of seconds from 30 to 3600" && return ;;
  esac
  if [ "$limit" -lt 30 ] || [ "$limit" -gt 3600 ]; then
    DETAIL="time_limit=$limit is not a number of seconds from 30 to 3600" && return
  fi
  quick=$(config_value quick "$1")
  case ${quick:=yes} in
    yes | no) ;;
    *) DETAIL="quick=$quick is not yes or no" && return ;;
  esac
  age=$(config_value max_age_minutes "$1")
  case ${age:=60} in
    '' | *[!0-9]* | ?????????*) DETAIL="max_age_minutes=$age is not a number of minutes" && return ;;
  esac
  [ -x "${doctor:=/usr/local/bin/mps-doctor}" ] || { DETAIL="no mps-doctor at $doctor" && return; }
  case $doctor in /*) ;; *) DETAIL="doctor=$doctor is not an absolute path" && return ;; esac
  why=$(refusal "$doctor" "$(id -u)" "$strict")
  [ -z "$why" ] || { DETAIL=$why && return; }
  set -- /usr/bin/env -i "HOME=${HOME:-/}" PATH=/usr/bin:/bin:/usr/sbin:/sbin TERM=dumb "$doctor" check
  if [ -n "$report" ]; then
    case $report in /*) ;; *) DETAIL="report=$report is not an absolute path" && return ;; esac
    [ -f "$report" ] || { DETAIL="no report at $report" && return; }
    why=$(refusal "$report" "$(id -u)" "$strict")
    [ -z "$why" ] || { DETAIL=$why && return; }
    if [ -n "$(find "$report" -prune -mmin +"$age" -print 2>/dev/null)" ]; then
      DETAIL="$report is older than $age minutes: is the job that writes it running?" && return
    fi
    set -- "$@" --from "$report" --format plist --no-color
  else
    [ -n "$python" ] || { DETAIL="neither python= nor report= is set" && return; }
    case $python in /*) ;; *) DETAIL="python=$python is not an absolute path" && return ;; esac
    [ -x "$python" ] || { DETAIL="no Python at $python" && return; }
    why=$(refusal "$python" "$(id -u)" "$strict")
    [ -z "$why" ] || { DETAIL=$why && return; }
    set -- "$@" --python "$python" --device "$device" --timeout $((limit - 15)) --format plist --no-color
    [ "$quick" = no ] || set -- "$@" --quick
  fi
  cd / || return
  doctor_answer "$limit" "$@"
  read_status "$limit"
}

config=${1:-${MPS_DOCTOR_HEALTH_CONFIG:-/etc/mps-doctor/health.conf}}
health_check "$config"
max_length=80
if config_trusted "$config"; then
  max_length=$(config_value max_length "$config")
  case $max_length in
    '' | *[!0-9]* | ?????*) max_length=80 ;;
  esac
  [ "$max_length" -ge 20 ] || max_length=20
fi
# A line longer than max_length ends at a word, with "...": NPD would cut it anywhere.
clean "$STATE: $DETAIL" | awk -v max="$max_length" '
  length($0) <= max { print; next }
  { line = substr($0, 1, max - 3); if (substr($0, max - 2, 1) != " ") sub(/ +[^ ]*$/, "", line); print line "..." }'

case $STATE in
  ready) exit 0 ;;
  not-ready | timed-out) exit 1 ;;
  *) exit 2 ;;
esac
