"""The fast engine: apparent places from the kernel's Chebyshev segments, one instant at a
time, as plain Python for one chart and compiled by numba for many."""
