"""The chart rules, with no ephemeris: the wheel (longitude to gate, line, color, tone, base),
the center graph, the properties of one chart and their vectorized twin, the shared text."""
