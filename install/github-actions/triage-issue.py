#!/usr/bin/env python3
"""Post or update ONE mps-doctor triage comment on the issue of a GitHub `issues` event, with `gh`.

Reads the event from $GITHUB_EVENT_PATH. The issue body goes from the event file into a temporary file that
`mps-doctor triage` reads: it is never part of a command line or of the workflow's script. The comment carries a
hidden marker, so an edited issue updates the same comment instead of adding one.

Posts when triage finds a problem (exit 1); when it finds none (exit 0) it only updates an earlier comment, and
text with nothing recognizable (exit 2) is left alone. Exit 0 when done, 1 on a failure (a message on stderr).
Environment: GH_TOKEN (for gh), MPS_DOCTOR (the command, default: this Python's `-m mps_doctor`), TRIAGE_BOT_LOGIN
(whose comment to update, default github-actions[bot]).
"""

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

MARKER = "<!-- mps-doctor-triage -->"
REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def gh(*args):
    """Run gh with ARGS; its stdout, or an error naming the call."""
    result = subprocess.run(["gh"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, timeout=120)
    if result.returncode != 0:
        raise RuntimeError("gh %s failed: %s" % (" ".join(args[:3]), result.stderr.strip()[:300]))
    return result.stdout


def json_values(text):
    """Every JSON value in TEXT: `gh api --paginate` prints one array per page."""
    decoder, index, values = json.JSONDecoder(), 0, []
    while index < len(text):
        if text[index].isspace():
            index += 1
            continue
        value, index = decoder.raw_decode(text, index)
        values.append(value)
    return values


def our_comment(repo, number, bot):
    """The id of the bot's comment that carries the marker, or None."""
    pages = json_values(gh("api", "--paginate", "repos/%s/issues/%d/comments" % (repo, number)))
    for page in pages:
        for comment in page if isinstance(page, list) else []:
            if MARKER in (comment.get("body") or "") and (comment.get("user") or {}).get("login") == bot:
                return comment["id"]
    return None


def triage(body, workdir):
    """(exit code, Markdown) of `mps-doctor triage` on BODY."""
    paste = os.path.join(workdir, "issue-body.md")
    with open(paste, "w", encoding="utf-8") as handle:
        handle.write(body)
    command = shlex.split(os.environ.get("MPS_DOCTOR", "")) or [sys.executable, "-m", "mps_doctor"]
    result = subprocess.run(command + ["triage", "--format", "markdown", paste], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=300)
    return result.returncode, result.stdout, result.stderr


def main():
    with open(os.environ["GITHUB_EVENT_PATH"], encoding="utf-8") as handle:
        event = json.load(handle)
    issue = event.get("issue") or {}
    repo = (event.get("repository") or {}).get("full_name") or ""
    number = issue.get("number")
    if event.get("action") not in ("opened", "edited") or "pull_request" in issue:
        print("triage: not a new or edited issue; nothing to do")
        return 0
    if not isinstance(number, int) or isinstance(number, bool) or not REPO.match(repo):
        print("triage: the event has no valid issue number or repository", file=sys.stderr)
        return 1
    bot = os.environ.get("TRIAGE_BOT_LOGIN", "github-actions[bot]")
    with tempfile.TemporaryDirectory() as workdir:
        code, markdown, errors = triage(issue.get("body") or "", workdir)
        if code == 2:
            print("triage: nothing recognizable in issue #%d; no comment" % number)
            return 0
        if code not in (0, 1):
            print("triage: mps-doctor failed (exit %d): %s" % (code, errors.strip()[:300]), file=sys.stderr)
            return 1
        existing = our_comment(repo, number, bot)
        if code == 0 and existing is None:
            print("triage: no problem found in issue #%d; no comment" % number)
            return 0
        payload = os.path.join(workdir, "comment.json")
        with open(payload, "w", encoding="utf-8") as handle:
            json.dump({"body": MARKER + "\n" + markdown}, handle)
        if existing is None:
            gh("api", "--method", "POST", "repos/%s/issues/%d/comments" % (repo, number), "--input", payload)
            print("triage: commented on issue #%d" % number)
        else:
            gh("api", "--method", "PATCH", "repos/%s/issues/comments/%d" % (repo, int(existing)), "--input", payload)
            print("triage: updated comment %d on issue #%d" % (int(existing), number))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError, KeyError, RuntimeError, subprocess.TimeoutExpired) as exc:
        print("triage: %s" % exc, file=sys.stderr)
        sys.exit(1)
