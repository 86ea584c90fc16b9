"""The frame marker: the prefix of every line the child writes for the doctor to read back.

The one definition of it: the child's __main__.py and mpsd_main.py write it, the doctor (probe/target.py) imports
it as mps_doctor.child.mpsd_frame. This file must parse on any Python, since __main__.py imports it before it checks
the interpreter's version.
"""
FRAME_MARK = "@@mps-doctor "
