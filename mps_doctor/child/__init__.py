"""The probe child: runs inside the target interpreter (stdlib and torch only, Python 3.7+)."""
