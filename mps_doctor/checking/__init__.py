"""The machinery of the checks: result and remedy types, the context a check reads, the registry and the paste rules."""
