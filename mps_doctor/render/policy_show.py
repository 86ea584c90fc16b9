"""`mps-doctor policy show`: the effective team policy and where each value came from, as text or JSON."""

import json

from mps_doctor.checking.model import Policy
from mps_doctor.policy import KNOWN_KEYS, policy_to_dict
from mps_doctor.render.safe import escaped_line

NO_POLICY = "no team policy: no pyproject.toml with a [tool.mps-doctor] table here or above; the defaults apply"
# What a key the policy leaves out means (any other key: any version).
DEFAULTS = {"device": "any device mps-doctor picks", "strict": "false", "skip": "none", "accept": "none"}


def policy_json(effective: Policy) -> str:
    """EFFECTIVE as the JSON of its table, with the origin of each value set."""
    return json.dumps(dict(policy_to_dict(effective), origins=dict(effective.origins)), indent=2) + "\n"


def policy_text(effective: Policy) -> str:
    """EFFECTIVE as lines: the file it came from, then each key, its value (or its default in parentheses) and the
    origin of the value; every value from the file is shown on one safe line."""
    origins = dict(effective.origins)
    values = {"device": ", ".join(effective.devices), "torch": effective.torch, "torchvision": effective.torchvision,
              "python": effective.python, "min-macos": effective.min_macos,
              "skip": "; ".join("%s (%s)" % item for item in effective.skip),
              "accept": "; ".join("%s (%s)" % item for item in effective.accept),
              "strict": "true" if effective.strict else "false"}
    lines = [escaped_line("policy from %s" % effective.source) if effective.source else NO_POLICY]
    for key in KNOWN_KEYS:
        shown = values[key] if key in origins else "(%s)" % DEFAULTS.get(key, "any")
        lines.append(escaped_line("  %-12s %-40s %s" % (key, shown, origins.get(key, "default"))))
    return "\n".join(lines) + "\n"
