"""The issue-triage workflow: its script run on real `issues` event payloads, with a stub `gh` that logs calls."""

import json
import os
import shlex
import subprocess
import sys

import pytest

from tests.paths import ROOT_DIR

yaml = pytest.importorskip("yaml")

ROOT = ROOT_DIR
FOLDER = os.path.join(ROOT, "install", "github-actions")
SCRIPT = os.path.join(FOLDER, "triage-issue.py")
MARKER = "<!-- mps-doctor-triage -->"
LIMIT = 65536  # GitHub's limit on an issue body and on a comment body, in characters
# A stub of the gh CLI: logs its argv, keeps the issue's comments in a JSON file, answers the three REST calls the
# script makes (list with --paginate, POST a comment, PATCH a comment) as GitHub's REST API documents them: a body
# over the limit is refused with 422 and changes nothing.
STUB = r'''#!%(python)s
import json, os, sys
args = sys.argv[1:]
with open(os.environ["GH_STUB_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
state = os.environ["GH_STUB_STATE"]
comments = json.load(open(state)) if os.path.exists(state) else []
def body(args):
    return json.load(open(args[args.index("--input") + 1]))["body"]
if "--input" in args and len(body(args)) > %(limit)d:
    sys.exit("gh: Validation Failed: Body is too long (maximum is %(limit)d characters) (HTTP 422)")
if args[:2] == ["api", "--paginate"]:
    print(json.dumps(comments[:1])); print(json.dumps(comments[1:]))
elif args[:3] == ["api", "--method", "POST"]:
    comment = {"id": 1000 + len(comments), "body": body(args), "user": {"login": "github-actions[bot]", "type": "Bot"}}
    comments.append(comment); print(json.dumps(comment))
elif args[:3] == ["api", "--method", "PATCH"]:
    wanted = int(args[3].rsplit("/", 1)[1])
    for comment in comments:
        if comment["id"] == wanted:
            comment["body"] = body(args)
    print("{}")
else:
    sys.exit("unexpected gh call: %%r" %% args)
json.dump(comments, open(state, "w"))
'''


# Stands in for `mps-doctor triage` (through MPS_DOCTOR, which the script honours): copies the file it is given to
# $FAKE_TRIAGE_COPY when set, prints $FAKE_TRIAGE_SIZE characters of Markdown and exits $FAKE_TRIAGE_EXIT.
FAKE_TRIAGE = r'''import os, shutil, sys
if os.environ.get("FAKE_TRIAGE_COPY"):
    shutil.copyfile(sys.argv[-1], os.environ["FAKE_TRIAGE_COPY"])
row = "| packages.torch | 2.10.0.dev20251008 | 48 | collect_env |\n"
size = int(os.environ.get("FAKE_TRIAGE_SIZE", "0"))
sys.stdout.write((row * (size // len(row) + 1))[:size])
sys.exit(int(os.environ.get("FAKE_TRIAGE_EXIT", "1")))
'''


def paste(name):
    with open(os.path.join(ROOT, "tests", "pasted", name + ".txt"), encoding="utf-8") as handle:
        return handle.read()


def triage_markdown(text, tmp_path):
    """What `mps-doctor triage --format markdown` prints for TEXT."""
    path = tmp_path / "expected-paste.md"
    path.write_text(text, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "mps_doctor", "triage", "--format", "markdown", str(path)],
                            env=dict(os.environ, PYTHONPATH=ROOT), cwd=str(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, timeout=300)
    assert result.returncode == 1, result.stderr
    return result.stdout


def facts(markdown):
    """{fact: value} of the table of what mps-doctor read from the paste."""
    rows = [line.split(" | ") for line in markdown.splitlines() if line.startswith("| ") and line.count(" | ") == 3]
    return {row[0][2:].strip("`"): row[1].strip("`") for row in rows if row[0] not in ("| fact", "| ---")}


def carried_over(old, new):
    """The lines of OLD (an issue body or an earlier comment) that are in NEW, the marker and short lines aside."""
    lines = (line.strip() for line in old.splitlines())
    return [line for line in lines if len(line) >= 8 and line != MARKER and line in new]


def event(action, body, changes=None, title="MPS not available"):
    """An `issues` webhook payload with the fields GitHub documents (action, issue, repository, sender)."""
    payload = {
        "action": action,
        "issue": {"url": "https://api.github.com/repos/octo-org/octo-repo/issues/42", "number": 42,
                  "title": title, "user": {"login": "reporter", "type": "User"}, "labels": [],
                  "state": "open", "locked": False, "comments": 0, "author_association": "NONE", "body": body,
                  "html_url": "https://github.com/octo-org/octo-repo/issues/42"},
        "repository": {"id": 1, "name": "octo-repo", "full_name": "octo-org/octo-repo", "private": False,
                       "owner": {"login": "octo-org", "type": "Organization"}},
        "sender": {"login": "reporter", "type": "User"},
    }
    if changes is not None:
        payload["changes"] = changes
    return payload


@pytest.fixture
def github(tmp_path):
    """Run the script on an event with the stub gh first on PATH; returns (run, calls, comments)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "gh"
    stub.write_text(STUB % {"python": sys.executable, "limit": LIMIT})
    stub.chmod(0o755)
    log, state = tmp_path / "gh.log", tmp_path / "comments.json"

    def run(payload, **extra):
        path = tmp_path / "event.json"
        path.write_text(json.dumps(payload))
        env = dict(os.environ, PATH="%s%s%s" % (bin_dir, os.pathsep, os.environ["PATH"]), GITHUB_EVENT_PATH=str(path),
                   GH_STUB_LOG=str(log), GH_STUB_STATE=str(state), GH_TOKEN="not-a-token", PYTHONPATH=ROOT, **extra)
        return subprocess.run([sys.executable, SCRIPT], env=env, cwd=str(tmp_path), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=300)

    def calls():
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def comments():
        return json.loads(state.read_text()) if state.exists() else []

    return run, calls, comments


def test_opened_creates_one_comment_and_edited_updates_it(github, tmp_path):
    run, calls, comments = github
    first = paste("pytorch-164943-macos13-torch210-stale-message")
    hostile = "\n`$(touch %s)` $(touch %s) ${{ github.token }} <img src=x onerror=alert(1)> @octo-org/admins\n" % (
        tmp_path / "pwned1", tmp_path / "pwned2")
    result = run(event("opened", first + hostile))
    assert result.returncode == 0, result.stderr
    assert [c[:3] for c in calls()] == [["api", "--paginate", "repos/octo-org/octo-repo/issues/42/comments"],
                                        ["api", "--method", "POST"]]
    assert len(comments()) == 1
    body = comments()[0]["body"]
    assert body.startswith(MARKER) and "macos.version" in body and "@octo-org" not in body and "<img" not in body
    assert not (tmp_path / "pwned1").exists() and not (tmp_path / "pwned2").exists()

    second = paste("textgen-6444-intel-mac-installer-pip")
    result = run(event("edited", second, changes={"body": {"from": first}}))
    assert result.returncode == 0, result.stderr
    assert [c[:3] for c in calls()][2:] == [["api", "--paginate", "repos/octo-org/octo-repo/issues/42/comments"],
                                            ["api", "--method", "PATCH"]]
    assert calls()[-1][3] == "repos/octo-org/octo-repo/issues/comments/1000"
    assert len(comments()) == 1 and "hardware.apple-silicon" in comments()[0]["body"]


def test_unrecognizable_body_posts_nothing(github):
    run, calls, comments = github
    result = run(event("opened", "Feature request: please add a dark theme."))
    assert result.returncode == 0 and "nothing recognizable" in result.stdout
    assert calls() == [] and comments() == []


def test_edit_to_unrecognizable_text_clears_the_comment(github, tmp_path):
    # The reporter removes what they pasted (a secret, say): the reply must stop quoting it; only the bot can edit it.
    run, calls, comments = github
    first = paste("pytorch-164943-macos13-torch210-stale-message")
    assert run(event("opened", first)).returncode == 0
    earlier = comments()[0]["body"]
    assert facts(earlier)["torch.version"] == "2.10.0.dev20251008"

    prose = "Never mind, it works now after a restart. Thanks for the help!"
    result = run(event("edited", prose, changes={"body": {"from": first}}))
    assert result.returncode == 0, result.stderr
    assert [c[:3] for c in calls()][2:] == [["api", "--paginate", "repos/octo-org/octo-repo/issues/42/comments"],
                                            ["api", "--method", "PATCH"]]
    assert calls()[-1][3] == "repos/octo-org/octo-repo/issues/comments/1000"
    assert len(comments()) == 1
    body = comments()[0]["body"]
    assert body.startswith(MARKER + "\n") and "no longer shows anything mps-doctor recognizes" in body
    assert carried_over(first, body) == [] and carried_over(earlier, body) == []
    assert [value for value in facts(earlier).values() if value in body] == []
    assert "Never mind" not in body  # nothing from the new text either

    # A later edit with a paste again updates the same comment.
    second = paste("whisper-webui-71-macos-python-too-new")
    assert run(event("edited", second, changes={"body": {"from": prose}})).returncode == 0
    assert [c[:3] for c in calls()][4:] == [["api", "--paginate", "repos/octo-org/octo-repo/issues/42/comments"],
                                            ["api", "--method", "PATCH"]]
    assert len(comments()) == 1 and comments()[0]["body"] == MARKER + "\n" + triage_markdown(second, tmp_path)


def test_edit_to_a_smaller_paste_replaces_the_whole_diagnosis(github, tmp_path):
    run, calls, comments = github
    first = paste("pytorch-164943-macos13-torch210-stale-message")
    second = paste("whisper-webui-71-macos-python-too-new")
    assert len(second) < len(first) / 4
    assert run(event("opened", first)).returncode == 0
    earlier = comments()[0]["body"]

    result = run(event("edited", second, changes={"body": {"from": first}}))
    assert result.returncode == 0, result.stderr
    assert calls()[-1][:4] == ["api", "--method", "PATCH", "repos/octo-org/octo-repo/issues/comments/1000"]
    assert len(comments()) == 1
    body = comments()[0]["body"]
    expected = triage_markdown(second, tmp_path)
    assert body == MARKER + "\n" + expected and len(body) < len(earlier)
    # Nothing of the old diagnosis is left: no line the new one does not have, no fact read from the old paste.
    assert [line for line in carried_over(earlier, body) if line not in expected.splitlines()] == []
    assert "**Cause** (`macos.version`)" not in body and "**Cause** (`python.version`)" in body
    gone = set(facts(earlier).values()) - set(facts(expected).values())
    assert "2.10.0.dev20251008" in gone and [value for value in gone if value in body] == []


@pytest.fixture
def fake_triage(tmp_path):
    """MPS_DOCTOR for a stand-in of `mps-doctor triage` (FAKE_TRIAGE)."""
    path = tmp_path / "fake_triage.py"
    path.write_text(FAKE_TRIAGE)
    return "%s %s" % (shlex.quote(sys.executable), shlex.quote(str(path)))


def test_oversized_markdown_posts_a_short_fallback(github, fake_triage):
    run, calls, comments = github
    result = run(event("opened", paste("pytorch-164943-macos13-torch210-stale-message")), MPS_DOCTOR=fake_triage,
                 FAKE_TRIAGE_SIZE="70000", FAKE_TRIAGE_EXIT="1")
    assert result.returncode == 0, result.stderr
    assert [c[:3] for c in calls()] == [["api", "--paginate", "repos/octo-org/octo-repo/issues/42/comments"],
                                        ["api", "--method", "POST"]]
    body = comments()[0]["body"]
    assert len(body) <= LIMIT and len(body.encode("utf-8")) <= LIMIT and body.startswith(MARKER + "\n")
    assert "too long to post" in body and "mps-doctor triage" in body and "2.10.0.dev20251008" not in body

    # A reply that fits is posted whole (the fallback replaces only what GitHub would refuse).
    result = run(event("edited", "edited", changes={"body": {"from": "x"}}), MPS_DOCTOR=fake_triage,
                 FAKE_TRIAGE_SIZE="60000", FAKE_TRIAGE_EXIT="1")
    assert result.returncode == 0, result.stderr
    assert len(comments()) == 1 and len(comments()[0]["body"]) == len(MARKER) + 1 + 60000


def test_oversized_issue_body_is_cut_at_the_limit_before_triage(github, fake_triage, tmp_path):
    run, calls, comments = github
    body = paste("pytorch-164943-macos13-torch210-stale-message") + "\u00e9" * (2 * LIMIT)
    copy = tmp_path / "what-triage-read.md"
    result = run(event("opened", body), MPS_DOCTOR=fake_triage, FAKE_TRIAGE_COPY=str(copy), FAKE_TRIAGE_EXIT="2")
    assert result.returncode == 0, result.stderr
    assert copy.read_text(encoding="utf-8") == body[:LIMIT]
    assert calls() == [] and comments() == []


def test_other_actions_and_bad_events_are_ignored_or_refused(github):
    run, calls, _ = github
    assert run(event("closed", paste("pytorch-164943-macos13-torch210-stale-message"))).returncode == 0
    broken = event("opened", "x")
    broken["repository"]["full_name"] = "octo-org/octo-repo; rm -rf /"
    assert run(broken).returncode == 1
    assert calls() == []


def test_workflow_permissions_and_body_handling():
    with open(os.path.join(FOLDER, "triage-issues.yml"), encoding="utf-8") as handle:
        text = handle.read()
    workflow = yaml.safe_load(text)
    triggers = workflow.get("on", workflow.get(True))
    assert triggers == {"issues": {"types": ["opened", "edited"]}}
    assert workflow["permissions"] == {"issues": "write", "contents": "read"}
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    runs = [s["run"] for s in steps if "run" in s]
    assert not any("${{" in command for command in runs)
    assert "github.event.issue.body" not in text and "issue.title" not in text
    assert any(command.endswith("triage-issue.py") for command in runs)
    assert {s["uses"].split("@")[0] for s in steps if "uses" in s} == {"actions/checkout", "actions/setup-python"}


def test_the_title_decides_when_the_body_names_no_cause_and_never_runs_or_becomes_an_option(github, tmp_path):
    run, calls, comments = github
    # mobileagent-60: nvidia-smi's header and a Python version in the body, the error in the title.
    body = paste("mobileagent-60-cpu-torch-with-nvidia-driver")
    result = run(event("opened", body, title="Torch not compiled with CUDA enabled"))
    assert result.returncode == 0, result.stderr
    reply = comments()[0]["body"]
    assert "torch.cuda-built" in reply and "Line 1 is the issue's title" in reply
    # A title that looks like an option or a command stays a title: one --title=... argument, no shell.
    hostile = "--no-redact $(touch %s) `touch %s`\0 \ud800 @octo-org/admins" % (tmp_path / "pwned1", tmp_path / "pwned2")
    result = run(event("edited", body, changes={"body": {"from": body}}, title=hostile))
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "pwned1").exists() and not (tmp_path / "pwned2").exists()
    assert "@octo-org" not in comments()[0]["body"]
