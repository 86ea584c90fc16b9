"""The --timeout each command accepts, in seconds: the one place that states the limits and the defaults."""

# The shortest --timeout of every command.
TIMEOUT_MIN = 1
# check, fix and policy init: what the probe child may take (torch import, parity and smoke).
CHECK_TIMEOUT_DEFAULT = 180.0
CHECK_TIMEOUT_MAX = 3600
# bench: the whole benchmark, every device and epoch included.
BENCH_TIMEOUT_DEFAULT = 1800.0
BENCH_TIMEOUT_MAX = 86400
# model: each run of the user's model in the target interpreter (trace, device step, CPU reference).
MODEL_TIMEOUT_DEFAULT = 900.0
MODEL_TIMEOUT_MAX = 86400
