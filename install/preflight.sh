#!/bin/sh
# mps-doctor pre-flight for a project's setup script or CI job.
#
# Finds or creates the project's Python environment, installs mps-doctor (and, if asked, torch) into it, runs
# `mps-doctor check` on it, and on failure prints the fix plan. It never prompts, never deletes anything, and
# exits with the doctor's exit code: 0 ready, 1 not ready, 2 usage error, 3 the doctor or the setup failed.
#
#   sh install/preflight.sh [options]
#
# Options:
#   --venv DIR        the environment to use or create (default: $VIRTUAL_ENV, the active conda env, or .venv)
#   --python PATH     the interpreter that creates a new venv (default: Homebrew's or the first python3)
#   --from SOURCE     where mps-doctor comes from: a checkout or submodule folder, a wheel file the team
#                     keeps, or a VCS URL pinned to a commit or tag, git+https://HOST/OWNER/mps-doctor@<40-hex
#                     commit or vX.Y.Z tag>. Default: the checkout this script lives in; outside one, an
#                     mps-doctor already installed in the environment. Nothing is installed by name from a
#                     package index: whoever publishes that name there would run in this setup.
#   --torch VERSION   also install torch==VERSION (add --torchvision VERSION to pin the pair)
#   --torchvision VERSION
#   --index-url URL   package index for torch (e.g. https://download.pytorch.org/whl/cpu)
#   --device DEVICE   auto, mps, cpu or cuda (passed to mps-doctor check)
#   --strict          warnings fail too
#   --json FILE       keep the JSON report in FILE, in a folder that exists (checked first; default:
#                     DIR/mps-doctor-report.json in the environment)
#   --junit FILE      also write the verdict as a JUnit XML test report to FILE, for a CI system's test
#                     report (checked first, like --json)
#   --dry-run         print every command it would run (shell-quoted), and run none
#   --yes             accepted for scripts; this script never prompts
#   -h, --help        this help
set -u

venv_dir=""
python_bin=""
doctor_from=""
torch_version=""
vision_version=""
index_url=""
device="auto"
strict=""
json_file=""
junit_file=""
dry_run=0

say() { printf '%s\n' "preflight: $*" >&2; }
usage_error() { say "error: $*"; say "run: $(quote_all sh "$0" --help)"; exit 2; }
setup_failed() { say "error: $*"; exit 3; }

# quote WORD: WORD as the shell reads it back: bare when safe, else in single quotes ('\'' for a quote).
quote() {
  case "$1" in
    "" | *[!A-Za-z0-9_./:=@%+,-]*) ;;
    *) printf '%s' "$1"; return ;;
  esac
  rest=$1
  quoted=""
  while :; do
    case "$rest" in
      *\'*) quoted="$quoted${rest%%\'*}'\\''"; rest=${rest#*\'} ;;
      *) quoted="$quoted$rest"; break ;;
    esac
  done
  printf "'%s'" "$quoted"
}

# quote_all WORD...: the words quoted and joined by spaces.
quote_all() {
  sep=""
  for word in "$@"; do
    printf '%s%s' "$sep" "$(quote "$word")"
    sep=" "
  done
}

# The command line as given, for the native re-run that the Rosetta check prints.
arguments=$(quote_all "$@")

need_value() {
  if [ "$#" -lt 2 ] || [ -z "$2" ]; then
    usage_error "$1 needs a value"
  fi
}

while [ "$#" -gt 0 ]; do
  case "$1" in
    --venv) need_value "$@"; venv_dir=$2; shift 2 ;;
    --python) need_value "$@"; python_bin=$2; shift 2 ;;
    --from) need_value "$@"; doctor_from=$2; shift 2 ;;
    --version) usage_error "--version is gone: pass --from a checkout, a wheel file or a pinned git+https URL" ;;
    --torch) need_value "$@"; torch_version=$2; shift 2 ;;
    --torchvision) need_value "$@"; vision_version=$2; shift 2 ;;
    --index-url) need_value "$@"; index_url=$2; shift 2 ;;
    --device) need_value "$@"; device=$2; shift 2 ;;
    --strict) strict="--strict"; shift ;;
    --json) need_value "$@"; json_file=$2; shift 2 ;;
    --junit) need_value "$@"; junit_file=$2; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    --yes|-y) shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage_error "unknown option $1" ;;
  esac
done

case "$device" in auto|mps|cpu|cuda) ;; *) usage_error "--device must be auto, mps, cpu or cuda" ;; esac
# A source is a folder, a wheel file, or a VCS URL pinned to a full commit hash or a version tag (a branch moves).
case "$doctor_from" in
  "") ;;
  git+https://*@*)
    ref=${doctor_from##*@}
    case "$ref" in
      *[!0-9a-f]*|"") hex=no ;;
      *) hex=yes ;;
    esac
    if [ "$hex" = yes ] && [ "${#ref}" -eq 40 ]; then
      :
    elif printf '%s' "$ref" | grep -Eq '^v?[0-9]+(\.[0-9]+)+$'; then
      :
    else
      usage_error "--from $doctor_from: pin the URL to a 40-hex commit or a vX.Y.Z tag after @ (a branch moves)"
    fi ;;
  *://*|git+*) usage_error "--from $doctor_from: a URL must be git+https://...@<40-hex commit or vX.Y.Z tag>" ;;
  *.whl)
    [ -f "$doctor_from" ] || usage_error "--from $doctor_from: no such wheel file"
    doctor_from=$(cd "$(dirname "$doctor_from")" && pwd)/$(basename "$doctor_from") ;;
  *)
    if ! grep -q '^name = "mps-doctor"' "$doctor_from/pyproject.toml" 2>/dev/null; then
      usage_error "--from $doctor_from: not an mps-doctor checkout, a .whl file or a pinned git+https URL"
    fi
    # An absolute path: pip reads a bare word as a name to look up on the package index.
    doctor_from=$(cd "$doctor_from" && pwd) ;;
esac
[ -z "$vision_version" ] || [ -n "$torch_version" ] || usage_error "--torchvision needs --torch (they are pinned together)"
# --json FILE and --junit FILE are checked before any work: a setup that ran for nothing and then could not keep its
# verdict is worse than a usage error now. The folder must exist and be writable, and FILE must not be a folder (or a
# link to nothing).
writable_file() {
  file_dir=$(dirname "$2")
  if [ -d "$2" ]; then
    usage_error "$1 $2: is a folder; name a file"
  elif [ -L "$2" ] && [ ! -e "$2" ]; then
    usage_error "$1 $2: a link to nothing; name a file"
  elif [ ! -d "$file_dir" ]; then
    usage_error "$1 $2: the folder $file_dir does not exist"
  elif [ ! -w "$file_dir" ] || [ ! -x "$file_dir" ]; then
    usage_error "$1 $2: the folder $file_dir is not writable"
  elif [ -e "$2" ] && [ ! -w "$2" ]; then
    usage_error "$1 $2: not writable"
  fi
}
[ -z "$json_file" ] || writable_file --json "$json_file"
[ -z "$junit_file" ] || writable_file --junit "$junit_file"

# run CMD...: print it (shell-quoted), and run it unless --dry-run.
run() {
  printf '+ %s\n' "$(quote_all "$@")" >&2
  [ "$dry_run" -eq 1 ] && return 0
  "$@"
}

# Rosetta first: an x86_64 shell on Apple Silicon would build an x86_64 environment that can never use the GPU.
# sysctl.proc_translated is 1 in a process translated by Rosetta (Apple, "About the Rosetta Translation Environment").
if [ "$(uname -s)" = "Darwin" ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null)" = "1" ]; then
  say "this shell runs under Rosetta (x86_64) on an Apple Silicon Mac: an environment made here cannot use the GPU."
  say "re-run it natively:  $(quote_all arch -arm64 /bin/sh "$0")${arguments:+ $arguments}"
  if [ "$device" != "cpu" ]; then
    exit 1
  fi
  say "continuing because --device cpu was asked for"
fi

# Find the environment: --venv, an active venv, an active conda env, an existing .venv; else create .venv.
env_python=""
if [ -n "$venv_dir" ]; then
  :
elif [ -n "${VIRTUAL_ENV:-}" ]; then
  venv_dir=$VIRTUAL_ENV
elif [ -n "${CONDA_PREFIX:-}" ] && [ -d "${CONDA_PREFIX}/conda-meta" ]; then
  venv_dir=$CONDA_PREFIX
else
  venv_dir=.venv
fi

if [ -x "$venv_dir/bin/python" ]; then
  say "using the existing environment $venv_dir"
  env_python=$venv_dir/bin/python
elif [ -e "$venv_dir" ]; then
  setup_failed "$venv_dir exists but has no bin/python; pass --venv DIR for another folder (nothing was changed)"
else
  if [ -z "$python_bin" ]; then
    # Homebrew sets HOMEBREW_PREFIX in its shellenv: /opt/homebrew on Apple Silicon (docs.brew.sh/Installation).
    if [ -n "${HOMEBREW_PREFIX:-}" ] && [ -x "${HOMEBREW_PREFIX}/bin/python3" ]; then
      python_bin=${HOMEBREW_PREFIX}/bin/python3
    elif command -v python3 >/dev/null 2>&1; then
      python_bin=$(command -v python3)
    fi
  fi
  if command -v uv >/dev/null 2>&1; then
    say "creating $venv_dir with uv"
    if [ -n "$python_bin" ]; then
      run uv venv --python "$python_bin" "$venv_dir" || setup_failed "uv venv failed"
    else
      run uv venv "$venv_dir" || setup_failed "uv venv failed"
    fi
  else
    [ -n "$python_bin" ] || setup_failed "no python3 found; pass --python PATH"
    say "creating $venv_dir with $python_bin -m venv"
    run "$python_bin" -m venv "$venv_dir" || setup_failed "$python_bin -m venv failed"
  fi
  env_python=$venv_dir/bin/python
fi

# pip_install ARGS...: into the environment, with uv when the environment is a uv venv.
pip_install() {
  if command -v uv >/dev/null 2>&1 && grep -q '^uv = ' "$venv_dir/pyvenv.cfg" 2>/dev/null; then
    run uv pip install --python "$env_python" "$@"
  else
    run "$env_python" -m pip install --quiet "$@"
  fi
}

# Run from an mps-doctor checkout or submodule (install/preflight.sh inside it), the default source is that checkout.
script_root=$(cd "$(dirname "$0")/.." 2>/dev/null && pwd)
if [ -z "$doctor_from" ] && [ -n "$script_root" ] \
    && grep -q '^name = "mps-doctor"' "$script_root/pyproject.toml" 2>/dev/null; then
  doctor_from=$script_root
fi

if [ -n "$doctor_from" ]; then
  pip_install "$doctor_from" || setup_failed "installing mps-doctor from $doctor_from failed"
elif [ "$dry_run" -eq 0 ] && "$env_python" -c 'import mps_doctor' >/dev/null 2>&1; then
  say "using the mps-doctor installed in $venv_dir"
else
  usage_error "no mps-doctor to use: pass --from a checkout, a wheel file or git+https://...@<commit> (install/README.md)"
fi

if [ -n "$torch_version" ]; then
  set -- "torch==$torch_version"
  [ -z "$vision_version" ] || set -- "$@" "torchvision==$vision_version"
  [ -z "$index_url" ] || set -- "$@" --index-url "$index_url"
  pip_install "$@" || setup_failed "installing torch==$torch_version failed"
fi

# The check writes a fresh report to a temporary file, removed on every exit. Once the check gives a verdict, the
# report is kept in --json FILE, else in DIR/mps-doctor-report.json of the environment, and what is printed names it
# and mps-doctor by absolute path, so that every command shown still works after this script exits. After a usage
# error or a failure of the doctor, an old kept report is left as it was and never shown as if it were new.
kept=${json_file:-$venv_dir/mps-doctor-report.json}
report=""
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() { [ -z "$report" ] || rm -f "$report"; }
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
if [ "$dry_run" -eq 1 ]; then
  report="${TMPDIR:-/tmp}/mps-doctor-report.XXXXXX"
  run "$venv_dir/bin/mps-doctor" check --python "$env_python" --device "$device" $strict --format json --output "$report"
  run cp "$report" "$kept"
  run env GITHUB_ACTIONS='' "$venv_dir/bin/mps-doctor" check --from "$kept" $strict
  [ -z "$junit_file" ] || run "$venv_dir/bin/mps-doctor" check --from "$kept" $strict --no-github --format junit --output "$junit_file"
  report=""
  exit 0
fi

# absolute PATH: PATH from the root, its folder resolved (the folder must exist).
absolute() { printf '%s/%s' "$(cd "$(dirname "$1")" && pwd)" "$(basename "$1")"; }

report=$(mktemp "${TMPDIR:-/tmp}/mps-doctor-report.XXXXXX") || setup_failed "mktemp failed"
doctor=$(absolute "$venv_dir/bin/mps-doctor")
env_python=$(absolute "$env_python")

# One probe; the text comes from the saved report, so the summary is printed even when the check fails.
run "$doctor" check --python "$env_python" --device "$device" $strict --format json --output "$report"
code=$?
if [ "$code" -ge 2 ] || [ ! -s "$report" ]; then
  say "mps-doctor check exited $code without a verdict; $kept was not updated"
  [ "$code" -ge 2 ] || code=3
  exit "$code"
fi
if [ ! -d "$kept" ] && cp "$report" "$kept" 2>/dev/null; then
  kept=$(absolute "$kept")
elif [ -n "$json_file" ]; then
  setup_failed "cannot write $json_file"
else
  say "cannot write $kept (pass --json FILE to keep the report elsewhere); the report stays in $report"
  kept=$report
  report=""
fi
# In GitHub Actions the probe above wrote the step summary and annotations; the replays of its report add none.
GITHUB_ACTIONS='' NO_COLOR=1 "$doctor" check --from "$kept" $strict
if [ -n "$junit_file" ]; then
  "$doctor" check --from "$kept" $strict --no-github --format junit --output "$junit_file"
  [ "$?" -le 1 ] || say "cannot write the JUnit report $junit_file"
fi
if [ "$code" -eq 1 ]; then
  # The plan comes from the environment itself, not from the report: a plan for a report is for whichever machine
  # wrote it and starts mps-doctor by name, which is not on PATH here until the environment is active.
  say "not ready; the commands that fix it (review them, then run them):"
  "$doctor" fix --print-commands --python "$env_python" --device "$device" $strict
fi
say "report kept in $kept"
exit "$code"
