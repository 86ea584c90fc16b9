# Entry point of the probe child, run by the *target* interpreter as `python <this folder> MODE OPTIONS_JSON`.
# This file must parse on any Python, so that an interpreter too old for the rest answers with a fact.
import sys

from mpsd_frame import FRAME_MARK

if sys.version_info < (3, 7):
    sys.stdout.write(FRAME_MARK + '{"event": "result", "stage": "interpreter", "data": {"too_old": true, "version": %s}}\n'
                     % (list(sys.version_info[:3]),))
    sys.exit(0)

import mpsd_main  # noqa: E402

mpsd_main.main(sys.argv[1:])
