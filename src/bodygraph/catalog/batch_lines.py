"""The words of a batch job's lines on stderr (``bodygraph batch``): defined here, below the
batch package, so that the command line can say them without importing it."""

from __future__ import annotations

from bodygraph.catalog.translations import counted

__all__ = ["MORE_BAD_ROWS", "PROGRESS", "ROWS"]

#: The count of the rows done when the total is not known (the progress bar's first part).
ROWS = counted("cli", "{count} row", "{count} rows", "count")
#: The progress line: the rows done, the rate, how many bad rows (``bad`` agrees with the
#: count in some languages, though not in English).
PROGRESS = counted("cli", "{progress}  {rate} rows/s  {errors} bad",
                   "{progress}  {rate} rows/s  {errors} bad", "errors")
#: The line after the bad rows a batch reports one by one: how many more there are.
MORE_BAD_ROWS = counted("error", "... and {count} more bad row (see the error column)",
                        "... and {count} more bad rows (see the error column)", "count")
