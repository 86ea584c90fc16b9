"""Files and stdin that a command reads (pasted text, saved reports): read bounded, whatever they are."""

import json
import re
from typing import Optional

from mps_doctor.errors import UsageError

# An environment dump and an error are a few KiB, a report some tens; 5 MiB is far past both, and bounds the memory
# and time a hostile or mistaken input (/dev/zero, a disk image) can cost.
MAX_INPUT = 5 * 1024 * 1024
# The "format" of every JSON report (docs/report-format.md); its one home.
REPORT_FORMAT = "mps-doctor-report"


def read_input(path: Optional[str], stdin, label: str = "") -> bytes:
    """The bytes of PATH, or of STDIN for '-' or no path: at most MAX_INPUT of them, read as such (never more than
    one byte past the cap), else a UsageError whose message starts with LABEL (e.g. '--from x.json')."""
    prefix = "%s: " % label if label else ("%s: " % path if path not in (None, "-") else "")
    if path in (None, "-"):
        source = getattr(stdin, "buffer", stdin)
        data = source.read(MAX_INPUT + 1)
        data = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    else:
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_INPUT + 1)
        except FileNotFoundError:
            raise UsageError("%sno such file" % prefix)
        except IsADirectoryError:
            raise UsageError("%sis a directory" % prefix)
        except OSError as exc:
            raise UsageError("%s%s" % (prefix, exc.strerror or exc))
    if len(data) > MAX_INPUT:
        raise UsageError("%sthe input is larger than %d MiB: paste the environment dump and the error only"
                         % (prefix, MAX_INPUT >> 20))
    return data


def is_json_document(data: bytes) -> bool:
    """Whether DATA is JSON, or starts like a JSON object (a saved report, maybe a damaged one), rather than pasted
    text: a report's errors then name what is wrong with it as a report."""
    if data.lstrip()[:1] == b"{":
        return True
    try:
        json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return True


# A fenced code block of JSON in Markdown (CommonMark 4.5): an opening fence of three or more backticks with the info
# string json, then the lines up to a fence of at least as many backticks (what `check --format markdown` writes).
FENCE_OPEN = re.compile(r"^ {0,3}(`{3,})\s*json\s*$")


def embedded_report(text: str) -> Optional[bytes]:
    """The first JSON mps-doctor report fenced as code in TEXT (a pasted `check --format markdown`), as bytes; None
    when there is none."""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE_OPEN.match(lines[index])
        index += 1
        if not opening:
            continue
        closing = re.compile(r"^ {0,3}`{%d,}\s*$" % len(opening.group(1)))
        end = next((i for i in range(index, len(lines)) if closing.match(lines[i])), len(lines))
        body = "\n".join(lines[index:end])
        index = end + 1
        if '"%s"' % REPORT_FORMAT not in body:
            continue
        try:
            doc = json.loads(body)
        except (ValueError, RecursionError):
            continue
        if isinstance(doc, dict) and doc.get("format") == REPORT_FORMAT:
            return body.encode("utf-8")
    return None
