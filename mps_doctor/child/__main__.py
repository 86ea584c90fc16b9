# Entry point of the probe child, run by the *target* interpreter as `python <this folder> MODE OPTIONS_JSON`.
# This file must parse on any Python, so that an interpreter too old for the rest answers with a fact: its version,
# and where it lives (the fix plan reads how it was installed from its paths), on any Python that has json (2.6+).
import sys

from mpsd_frame import FRAME_MARK

if sys.version_info < (3, 7):
    facts = {"too_old": True, "version": list(sys.version_info[:3])}
    try:
        import json
        import os

        executable = sys.executable or None
        facts.update({
            "executable": executable,
            "executable_realpath": os.path.realpath(executable) if executable else None,
            "prefix": sys.prefix,
            # Python 2's virtualenv sets sys.real_prefix where venv (3.3+) sets sys.base_prefix.
            "base_prefix": getattr(sys, "base_prefix", getattr(sys, "real_prefix", sys.prefix)),
            "conda_meta": os.path.isdir(os.path.join(sys.prefix, "conda-meta")),
        })
        line = json.dumps({"event": "result", "stage": "interpreter", "data": facts})
    except Exception:
        line = '{"event": "result", "stage": "interpreter", "data": {"too_old": true, "version": %s}}' % (
            list(sys.version_info[:3]),)
    sys.stdout.write(FRAME_MARK + line + "\n")
    sys.exit(0)

import mpsd_main  # noqa: E402

mpsd_main.main(sys.argv[1:])
