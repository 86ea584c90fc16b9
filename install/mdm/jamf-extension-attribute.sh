#!/bin/sh
# mps-doctor for Jamf Pro: a computer extension attribute (Input Type: Script, Data Type: String).
#
# Prints one line, <result>STATE: DETAIL</result>, which Jamf Pro stores at each inventory update
# (https://learn.jamf.com, "Computer Extension Attributes": the text between <result> and </result> is stored).
# STATE is ready, not-ready, timed-out or doctor-failed (mps-doctor's verdict), or not-checked (the detail says
# why: nobody logged in, no configuration, no Python or mps-doctor, an unsafe path). Smart groups match on it:
# "MPS Doctor like not-ready". The detail is one line of printable ASCII without < or >, whatever the report holds.
#
# Runs as:      root (Jamf runs extension attributes as root, outside any user's shell).
# Finds Python: the user at the screen (scutil's State:/Users/ConsoleUser), their home folder (dscl), and the
#               project environment named by venv= in /Library/Application Support/mps-doctor/mdm.conf (a file
#               that root owns and only root can write; relative to the home folder, or absolute). mps-doctor is
#               that environment's bin/mps-doctor, ~/.local/bin/mps-doctor (pipx, uv tool) or
#               ~/.venvs/mps-doctor/bin/mps-doctor, or doctor= in the file. A path that another user could change
#               (a world-writable folder on the way, /tmp included) is refused, and so is its #! interpreter's.
# Runs doctor:  as that user (launchctl asuser UID sudo -u USER -H), with an empty environment but HOME, USER,
#               LOGNAME, PATH=/usr/bin:/bin:/usr/sbin:/sbin and TERM=dumb, from the project's folder (its
#               pyproject.toml policy applies): mps-doctor check --python VENV/bin/python --format plist --quick.
# Time limit:   120 s (time_limit= in mdm.conf): the doctor's own --timeout is 15 s less, then a watchdog stops it
#               (SIGTERM, SIGKILL 10 s later). Inventory waits for extension attributes: keep it short.
# Changes:      nothing. It writes no file; mps-doctor only reads (docs/security.md of mps-doctor).
# Exit status:  0 (Jamf reads the result, not the status).
#
# Settings in mdm.conf (key=value lines, # comments): venv=, doctor=, device=auto|mps|cpu|cuda, time_limit=SECONDS,
# quick=yes|no. MPS_DOCTOR_MDM_CONFIG names another file (tests).

TIME_LIMIT=120
QUICK=yes

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

# --- common: mdm (the same in every script of install/mdm; tests/integration/test_mdm.py compares) ---
CONFIG=${MPS_DOCTOR_MDM_CONFIG:-/Library/Application Support/mps-doctor/mdm.conf}

# console_user: the short name of the user at the screen, from the dynamic store (scutil); nothing at the login
# window. Apple's recommended way since `stat -f%Su /dev/console` reports root during Fast User Switching
# (https://scriptingosx.com/2020/02/getting-the-current-user-in-macos-update/).
console_user() {
  printf 'show State:/Users/ConsoleUser\n' | scutil 2>/dev/null | awk '$1 == "Name" && $2 == ":" { print $3; exit }'
}

# home_of USER: USER's home folder from the directory service (dscl on macOS, getent elsewhere).
home_of() {
  if command -v dscl >/dev/null 2>&1; then
    dscl . -read "/Users/$1" NFSHomeDirectory 2>/dev/null | sed -n 's/^NFSHomeDirectory: //p'
  else
    getent passwd "$1" 2>/dev/null | cut -d: -f6
  fi
}

# mdm_check: check the console user's environment as that user; STATE and DETAIL (read_status), ANSWER the status.
mdm_check() {
  STATE=not-checked
  ANSWER=
  if [ "$(id -u)" = 0 ]; then
    user=$(console_user)
    case $user in
      '' | loginwindow | _mbsetupuser) DETAIL="no user is logged in" && return ;;
      -* | *[!A-Za-z0-9._-]*) DETAIL="the console user's name is not a plain name" && return ;;
    esac
    uid=$(id -u "$user" 2>/dev/null) || { DETAIL="no account for $user" && return; }
    home=$(home_of "$user")
  else
    user=$(id -un)
    uid=$(id -u)
    home=$HOME
  fi
  case $home in
    /*) [ -d "$home" ] || { DETAIL="$user has no home folder" && return; } ;;
    *) DETAIL="$user has no home folder" && return ;;
  esac
  if ! config_trusted "$CONFIG"; then
    if [ -e "$CONFIG" ]; then
      DETAIL="$CONFIG is ignored: it must belong to root and be writable by no one else"
    else
      DETAIL="no $CONFIG (see mps-doctor's install/mdm/README.md)"
    fi
    return
  fi
  venv=$(config_value venv "$CONFIG")
  [ -n "$venv" ] || { DETAIL="$CONFIG sets no venv=" && return; }
  case $venv in /*) ;; *) venv=$home/$venv ;; esac
  python=$venv/bin/python
  [ -x "$python" ] || { DETAIL="$user has no Python at $python" && return; }
  doctor=$(config_value doctor "$CONFIG")
  if [ -n "$doctor" ]; then
    case $doctor in /*) ;; *) doctor=$home/$doctor ;; esac
    [ -x "$doctor" ] || { DETAIL="$user has no mps-doctor at $doctor" && return; }
  else
    for doctor in "$venv/bin/mps-doctor" "$home/.local/bin/mps-doctor" "$home/.venvs/mps-doctor/bin/mps-doctor" ''; do
      [ -x "$doctor" ] && break
    done
    [ -n "$doctor" ] || { DETAIL="$user has no mps-doctor in $venv/bin, ~/.local/bin or ~/.venvs/mps-doctor/bin" && return; }
  fi
  for program in "$python" "$doctor"; do
    why=$(refusal "$program" "$uid")
    [ -z "$why" ] || { DETAIL=$why && return; }
  done
  device=$(config_value device "$CONFIG")
  case ${device:=auto} in
    auto | mps | cpu | cuda) ;;
    *) DETAIL="$CONFIG: device=$device is not auto, mps, cpu or cuda" && return ;;
  esac
  limit=$(config_value time_limit "$CONFIG")
  case ${limit:=$TIME_LIMIT} in
    '' | *[!0-9]* | ?????*) DETAIL="$CONFIG: time_limit=$limit is not a number of seconds from 30 to 3600" && return ;;
  esac
  if [ "$limit" -lt 30 ] || [ "$limit" -gt 3600 ]; then
    DETAIL="$CONFIG: time_limit=$limit is not a number of seconds from 30 to 3600" && return
  fi
  quick=$(config_value quick "$CONFIG")
  case ${quick:=$QUICK} in
    yes | no) ;;
    *) DETAIL="$CONFIG: quick=$quick is not yes or no" && return ;;
  esac
  # The project's folder: the policy of its pyproject.toml ([tool.mps-doctor]) applies, as it does there.
  cd "$(dirname "$venv")" 2>/dev/null || cd / || return
  set -- /usr/bin/env -i "HOME=$home" "USER=$user" "LOGNAME=$user" PATH=/usr/bin:/bin:/usr/sbin:/sbin TERM=dumb \
    "$doctor" check --python "$python" --device "$device" --timeout $((limit - 15)) --format plist --no-color
  [ "$quick" = no ] || set -- "$@" --quick
  if [ "$(id -u)" = 0 ]; then
    set -- launchctl asuser "$uid" sudo -u "$user" -H "$@"
  fi
  doctor_answer "$limit" "$@"
  read_status "$limit"
}
# --- end of common: mdm ---

mdm_check
printf '<result>%s</result>\n' "$(clean "$STATE: $DETAIL")"
exit 0
