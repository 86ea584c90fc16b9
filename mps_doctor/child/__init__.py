"""The probe child: runs inside the target interpreter (stdlib and torch only, Python 3.7+).

Why every module here is named `mpsd_*`: the doctor runs this folder as a script, `python <this folder> MODE
OPTIONS_JSON` (probe/target.py), so the child lives in the user's interpreter as top-level modules, imported by bare
name (`import mpsd_main`, `import mpsd_net`) from sys.path[0], which is this folder. Its names therefore share one
namespace with everything the user's environment imports:

- a module of the same name that the interpreter's start-up already imported (a sitecustomize, a `.pth` file's
  `import` line, both of which run before sys.path[0] is added) sits in sys.modules, and the child's `import` would
  silently get the user's module instead of its own;
- the other way round, this folder comes first on sys.path, so a child module named `net`, `probe` or `bench` would
  shadow the user's or a library's module of that name for torch and everything imported after it.

The prefix keeps both from happening. The doctor itself imports the plain-data modules by their package path
(`mps_doctor.child.mpsd_frame`, `mps_doctor.child.mpsd_idx`); the child never imports from the doctor.
"""
