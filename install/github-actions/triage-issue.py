#!/usr/bin/env python3
"""Post or update ONE mps-doctor triage comment on the issue of a GitHub `issues` event, with `gh`.

Reads the event from $GITHUB_EVENT_PATH. The issue body goes from the event file into a temporary file that
`mps-doctor triage` reads: it is never part of a command line or of the workflow's script. The title goes as one
`--title=...` argument of that command, which runs without a shell (triage reads it only when the body names no
cause). The comment carries a
hidden marker, so an edited issue updates the same comment instead of adding one.

Posts when triage finds a problem (exit 1); when it finds none (exit 0) it only updates an earlier comment. Text with
nothing recognizable (exit 2) gets no comment, but when an edit leaves the issue so, the earlier comment is replaced
by a short note that quotes nothing: the reporter may have edited the issue to remove what they pasted (a token, a
path), they cannot edit the bot's comment, and a stale quote must not outlive the edit. The comment is updated
rather than deleted, so the maintainer still sees that the issue was triaged and changed, and a later edit with a
paste updates the same comment again.

GitHub refuses a body over 65,536 characters (the issue's own body is capped there too). The issue body is cut at
that length before triage reads it, and a reply over it (measured in UTF-8 bytes, never fewer than the characters
GitHub counts, whether code points or UTF-16 units) is replaced by a short note to run mps-doctor triage locally,
so an edit never leaves the old comment in place because its update was refused.

Exit 0 when done, 1 on a failure (a message on stderr).
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
LIMIT = 65536  # GitHub's limit on an issue body and on a comment body
# The replies that carry nothing from the issue.
CLEARED = ("**mps-doctor triage**: the issue text, as edited, no longer shows anything mps-doctor recognizes (an "
           "error message, `python -m torch.utils.collect_env` output, an install log), so the earlier diagnosis "
           "was removed. Paste one of those into the issue for a new one.\n")
TOO_LONG = ("**mps-doctor triage**: the diagnosis is too long to post; run mps-doctor triage locally on the issue "
            "text saved to a file: `mps-doctor triage --format markdown FILE`.\n")


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


def fits(body):
    """Whether GitHub takes BODY as a comment: its UTF-8 bytes, at least as many as any count of its characters."""
    return len(body.encode("utf-8", "surrogatepass")) <= LIMIT


def title_argument(title):
    """`--title=TITLE` for mps-doctor: one line of at most 256 characters (GitHub's cap), without NUL, which no
    argument can hold; joined to the option by `=`, so that a title starting with a dash is never read as an option.
    It is an argument of the command run without a shell, never part of a script."""
    text = " ".join(str(title or "").replace("\0", " ").split())[:256]
    # A lone surrogate (JSON can carry one) is no character an argument can hold: replaced, as the body's are.
    text = text.encode("utf-8", "replace").decode("utf-8")
    return ["--title=" + text] if text else []


def triage(body, workdir, title=""):
    """(exit code, Markdown, errors) of `mps-doctor triage` on BODY, cut at GitHub's limit, with the issue's TITLE."""
    paste = os.path.join(workdir, "issue-body.md")
    with open(paste, "w", encoding="utf-8", errors="replace") as handle:
        handle.write(body[:LIMIT])
    command = shlex.split(os.environ.get("MPS_DOCTOR", "")) or [sys.executable, "-m", "mps_doctor"]
    result = subprocess.run(command + ["triage", "--format", "markdown"] + title_argument(title) + [paste],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
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
    body = issue.get("body")
    with tempfile.TemporaryDirectory() as workdir:
        title = issue.get("title")
        code, markdown, errors = triage(body if isinstance(body, str) else "", workdir,
                                        title if isinstance(title, str) else "")
        if code not in (0, 1, 2):
            print("triage: mps-doctor failed (exit %d): %s" % (code, errors.strip()[:300]), file=sys.stderr)
            return 1
        # A new issue has no comment of ours yet: text with nothing recognizable needs no call at all.
        existing = None if code == 2 and event.get("action") == "opened" else our_comment(repo, number, bot)
        if code != 1 and existing is None:
            print("triage: %s in issue #%d; no comment" % (
                "nothing recognizable" if code == 2 else "no problem found", number))
            return 0
        reply = MARKER + "\n" + (CLEARED if code == 2 else markdown)
        if not fits(reply):
            print("triage: the diagnosis of issue #%d is too long for a comment; posting a note" % number)
            reply = MARKER + "\n" + TOO_LONG
        payload = os.path.join(workdir, "comment.json")
        with open(payload, "w", encoding="utf-8") as handle:
            json.dump({"body": reply}, handle)
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
