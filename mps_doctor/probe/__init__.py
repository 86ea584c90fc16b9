"""The only code that touches the machine: the host probe (in-process) and the target probe (a child process)."""
