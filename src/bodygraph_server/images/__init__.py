"""Rendered charts: the /render image route, sealed render tokens, signing keys, per-account
templates and the render throttle."""
