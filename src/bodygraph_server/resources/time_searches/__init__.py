"""The time-search family: sensitivity, cycles and the ingress calendar (extensions)."""
