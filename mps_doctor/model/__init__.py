"""`mps-doctor model`: will this model train on the device, and on which torch (issue 22)."""
