"""Issue 19: no paste can make a triage reply (or any output made from a paste) say what the doctor did not write.

Generated pastes carry HTML, entities, mentions, references, autolinks, emoji, secrets, bidi characters, backtick
runs and `</details>` inside the lines the parsers read. Each reply is rendered as GitHub renders it
(tests/rendered.py); nothing live may appear that the doctor did not write, and no secret may appear in any format.
"""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mps_doctor.errors import UsageError
from mps_doctor.remedies.plan import build_plan
from mps_doctor.render.script import render_explained, render_script
from mps_doctor.render.triage import MAX_REPLY, render_triage
from mps_doctor.triage.engine import triage
from tests.hostile.attack import ESCAPE_BYTES, TALLY
from tests.rendered import live_problems, secrets_in

MARKUP = ("<h3>Maintainer note</h3>", "&lt;pre&gt;pip install --extra-index-url https://evil.example/simple torch&lt;/pre&gt;",
          '<img src="https://evil.example/t.gif">', "&lt;img src=x&gt;", "&#60;b&#62;", "@octocat", "@pytorch/team",
          "owner/repo#3", "#4", "GH-7", "https://evil.example/x", "www.evil.example", ":smile:", "~~gone~~", "__b__",
          "*e*", "[l](https://evil.example)", "![i](https://evil.example/i.png)", "</details>", "<details>", "```", "`",
          "``x``", "\u202e", "\u200b", "deadbeef1234", "$x$", "<!-- c -->", "<a href=x>", "a@b.example", "|", "\\|",
          "</summary>", "- item", "1. item", "# heading", "> quote", "    indented", "\x1b[31m")
# Secrets in the shapes their issuers document; each value below must never reach any output.
SECRETS = {
    "github": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "github-fine-grained": "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP",
    "huggingface": "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567",
    "pypi": "pypi-" + "AgEIcHlwaS5vcmcCJGE0ZTJmYTg0LWEyZjAtNDg3Ny1iZGQ4LTY2MmE0MjQ2NzQ4ZAACKlszLCJ",
    "aws-id": "AKIA" + "IOSFODNN7EXAMPLF",
    "aws-secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "slack": "xoxb-" + "1234567890-abcdefghijKLMN",
    "openai": "sk-proj-" + "abcdefghijklmnopqrstuvwxyz012345",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "url-password": "hunter2pass",
    "private-key": "MIIEowIBAAKCAQEAvuln3rab1e",
}
SECRET_LINES = (
    "export HF_TOKEN=%s" % SECRETS["huggingface"], "GITHUB_TOKEN: %s" % SECRETS["github"],
    "token = %s" % SECRETS["github-fine-grained"],
    "pip install --index-url https://__token__:%s@upload.pypi.example/simple torch" % SECRETS["pypi"],
    "AWS_ACCESS_KEY_ID=%s" % SECRETS["aws-id"], "aws_secret_access_key = %s" % SECRETS["aws-secret"],
    "SLACK=%s" % SECRETS["slack"], '"OPENAI_API_KEY": "%s"' % SECRETS["openai"], "Authorization: Bearer %s" % SECRETS["jwt"],
    "pip install --extra-index-url https://alice:%s@pypi.example/simple torch" % SECRETS["url-password"],
    "-----BEGIN RSA PRIVATE KEY-----\n%s\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n-----END RSA PRIVATE KEY-----" % SECRETS["private-key"],
)
# Lines the parsers read, each with a slot where the payload lands in a fact, a message or a summary.
CARRIERS = (
    "ERROR: Could not find a version that satisfies the requirement torch==2.9.0 (from versions: 9.9.9 {x})",
    "[pip3] {x}==1.0", "[conda] {x}                 1.0             pypi_0    pypi",
    "PyTorch version: 2.5.1\nOS: macOS 14.5 (arm64)\nPython version: 3.11.9 {x}\nIs MPS available: False",
    "NotImplementedError: The operator 'aten::{x}' is not currently implemented for the MPS device.",
    "RuntimeError: MPS backend out of memory (MPS allocated: 17.00 GB {x}, other allocations: 1.2 GB)",
    "ImportError: dlopen(/Users/John Smith/.venv/lib/{x}/torch/_C.so, 0x0002): tried: '{x}' (mach-o file, but is an "
    "incompatible architecture (have 'x86_64', need 'arm64'))",
    "GPU models and configuration: {x}", "Nvidia driver version: {x}", "- Platform: macOS-14.5-arm64-arm-64bit {x}",
    "torch-2.2.2-cp310-none-macosx_10_9_x86_64.whl {x}",
    ">>> torch.backends.mps.is_available()\nFalse {x}",
)
SETTINGS = settings(max_examples=300, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
payload = st.lists(st.one_of(st.sampled_from(MARKUP), st.sampled_from(SECRET_LINES), st.text(max_size=4)),
                   min_size=1, max_size=4).map(" ".join)


@st.composite
def pastes(draw):
    """An issue body: one to four carrier lines with payloads in their slots, secret lines, prose around them."""
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        lines.append(draw(st.sampled_from(CARRIERS)).replace("{x}", draw(payload)))
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(SECRET_LINES)))
        if draw(st.booleans()):
            lines.append(draw(payload))
    if draw(st.booleans()):
        lines = ["```"] + lines + ["```"]
    return "\n".join(lines)


def outputs(text):
    """Every output that triage and fix --from make from TEXT, by format; None when it holds nothing recognizable."""
    try:
        report = triage(text)
    except UsageError:
        return None
    plan = build_plan(report, shell="bash", doctor=("mps-doctor",))
    return {"markdown": render_triage(report, "markdown"), "markdown-unredacted": render_triage(report, "markdown", redacted=False),
            "text": render_triage(report, "text", verbose=True), "json": render_triage(report, "json"),
            "fix-script": render_script(plan), "fix-explained": render_explained(plan)}


def assert_safe(text):
    """The contract on every output of one paste."""
    rendered = outputs(text)
    if rendered is None:
        return
    for fmt in ("markdown", "markdown-unredacted"):
        assert live_problems(rendered[fmt]) == [], (fmt, live_problems(rendered[fmt])[:5], text)
        assert len(rendered[fmt].encode("utf-8")) <= MAX_REPLY
    for fmt, output in rendered.items():
        assert secrets_in(output, SECRETS.values()) == [], (fmt, secrets_in(output, SECRETS.values()), text)
        if fmt != "json":
            assert ESCAPE_BYTES.search(output) is None, (fmt, text)
    json.loads(rendered["json"])
    TALLY["pastes: triage replies rendered"] += 1


@SETTINGS
@given(pastes())
def test_generated_pastes_make_safe_replies(text):
    assert_safe(text)


REVIEW_PASTES = {
    "pip versions with escaped HTML": "```\nERROR: Could not find a version that satisfies the requirement torch==2.9.0 "
    "(from versions: 9.9.9 &lt;h3&gt;Maintainer note @pytorch/team @octocat&lt;/h3&gt;&lt;pre&gt;pip install "
    "--extra-index-url https://evil.example/simple torch&lt;/pre&gt;&lt;img src=\"https://evil.example/t.gif\"&gt;)\n"
    "ERROR: No matching distribution found for torch==2.9.0\n```",
    "collect_env package names": "PyTorch version: 2.5.1\nOS: macOS 14.5 (arm64)\nIs MPS available: False\n"
    "Versions of relevant libraries:\n[pip3] @octocat<img/src=x><a/href=https://evil.example>CLICK</a>==1.0\n"
    "[pip3] </details><h1>MAINTAINER:</h1>==1.0\n[pip3] torch==2.5.1",
    "secrets": "\n".join(SECRET_LINES) + "\nPyTorch version: 2.5.1\nOS: macOS 14.5 (arm64)\nIs MPS available: False",
    "references": "RuntimeError: MPS backend out of memory (MPS allocated: 17.00 GB, other allocations: 1.20 GB, max "
    "allowed: 18.13 GB). Tried to allocate 256.00 MB on private pool. see owner/repo#3 and #4 GH-7 https://evil.example "
    "www.evil.example :smile: ~~strike~~ __bold__",
}


def test_the_review_payloads_make_safe_replies():
    for name, text in REVIEW_PASTES.items():
        assert outputs(text) is not None, name
        assert_safe(text)


def test_package_names_that_are_not_names_are_not_facts():
    report = triage(REVIEW_PASTES["collect_env package names"])
    names = [fact["fact"] for fact in report.source["facts"]]
    assert "packages.torch" in names and not [n for n in names if "<" in n or "@" in n]


def test_a_body_at_githubs_limit_gives_a_reply_that_fits_one_comment():
    head = "PyTorch version: 2.5.1\nOS: macOS 14.5 (arm64)\nIs MPS available: False\n"
    body = (head + "\n".join("[pip3] package-number-%d==1.%d" % (i, i) for i in range(5000)))[:65536]
    reply = render_triage(triage(body), "markdown")
    assert len(reply.encode("utf-8")) <= MAX_REPLY and "left out to fit one comment" in reply
    assert reply.startswith("**mps-doctor triage**") and "**Cause**" in reply and reply.rstrip().endswith("```")


def test_fact_names_in_text_output_are_escaped_and_never_pose_as_another_fact():
    """Finding 6: a zero-width or bidi character in a package name reached the terminal, and `packages.torch\\u200b`
    showed as a second `packages.torch` row."""
    text = "PyTorch version: 2.5.1\nOS: macOS 14.5 (arm64)\n[pip3] torch\u200b==9.9.9\n[pip3] numpy\u202e==1.26.4\n" \
           "[pip3] torch==2.5.1\n"
    output = render_triage(triage(text), "text", verbose=True)
    assert ESCAPE_BYTES.search(output) is None
    rows = [line.split()[0] for line in output.splitlines() if line.startswith("  packages.")]
    assert rows.count("packages.torch") == 1 and "9.9.9" not in output


def test_a_secret_split_by_what_cleaning_removes_is_still_never_repeated():
    """An escape, a tag, a control character or an entity inside or before a token hides its shape from the first
    scrub; the cleaned text is scrubbed again (and so is the issue's title)."""
    token = SECRETS["github"]
    split = ("\x1b[31m" + token, token[:6] + "<b></b>" + token[6:], token[:6] + "\x07" + token[6:],
             token[:3] + "&#95;" + token[4:])
    for hidden in split:
        paste = "RuntimeError: Torch not compiled with CUDA enabled %s\nPython version: 3.11.4\n" % hidden
        for report in (triage(paste), triage("help", title="Torch not compiled with CUDA enabled " + hidden)):
            for fmt in ("json", "markdown", "text"):
                assert token not in render_triage(report, fmt), (hidden, fmt)
