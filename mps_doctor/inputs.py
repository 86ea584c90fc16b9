"""Files and stdin that a command reads (pasted text, saved reports): read bounded, whatever they are."""

import json
from typing import Optional

from mps_doctor.errors import UsageError

# An environment dump and an error are a few KiB, a report some tens; 5 MiB is far past both, and bounds the memory
# and time a hostile or mistaken input (/dev/zero, a disk image) can cost.
MAX_INPUT = 5 * 1024 * 1024


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
