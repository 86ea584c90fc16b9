"""The commands of the CLI, one module each: options in, the library called, output written, a documented exit code.
Each imports the heavy modules inside its function, so that `--help` and `--version` stay instant (cli.py)."""
