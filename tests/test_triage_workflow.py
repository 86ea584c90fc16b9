"""The issue-triage workflow: its script run on real `issues` event payloads, with a stub `gh` that logs calls."""

import json
import os
import subprocess
import sys

import pytest

yaml = pytest.importorskip("yaml")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "install", "github-actions")
SCRIPT = os.path.join(FOLDER, "triage-issue.py")
MARKER = "<!-- mps-doctor-triage -->"
# A stub of the gh CLI: logs its argv, keeps the comments in a JSON file, answers the three REST calls the
# script makes (list with --paginate, POST a comment, PATCH a comment) as GitHub's REST API documents them.
STUB = r'''#!%(python)s
import json, os, sys
args = sys.argv[1:]
with open(os.environ["GH_STUB_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
state = os.environ["GH_STUB_STATE"]
comments = json.load(open(state)) if os.path.exists(state) else []
def body(args):
    return json.load(open(args[args.index("--input") + 1]))["body"]
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


def paste(name):
    with open(os.path.join(ROOT, "tests", "pasted", name + ".txt"), encoding="utf-8") as handle:
        return handle.read()


def event(action, body, changes=None):
    """An `issues` webhook payload with the fields GitHub documents (action, issue, repository, sender)."""
    payload = {
        "action": action,
        "issue": {"url": "https://api.github.com/repos/octo-org/octo-repo/issues/42", "number": 42,
                  "title": "MPS not available", "user": {"login": "reporter", "type": "User"}, "labels": [],
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
    stub.write_text(STUB % {"python": sys.executable})
    stub.chmod(0o755)
    log, state = tmp_path / "gh.log", tmp_path / "comments.json"

    def run(payload):
        path = tmp_path / "event.json"
        path.write_text(json.dumps(payload))
        env = dict(os.environ, PATH="%s%s%s" % (bin_dir, os.pathsep, os.environ["PATH"]), GITHUB_EVENT_PATH=str(path),
                   GH_STUB_LOG=str(log), GH_STUB_STATE=str(state), GH_TOKEN="not-a-token", PYTHONPATH=ROOT)
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
