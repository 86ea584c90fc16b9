"""Pure checks: functions of the facts and the options, returning results with remedies."""
