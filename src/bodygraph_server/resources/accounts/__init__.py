"""The caller's own account (``/v2/account``): figures, usage, key and webhook secret."""
