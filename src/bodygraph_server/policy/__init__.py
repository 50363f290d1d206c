"""The business rules with no I/O: the plan table, credit periods and rollover, the clock."""
