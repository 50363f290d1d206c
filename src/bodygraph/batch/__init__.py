"""``bodygraph batch``: charts for a whole file of births, streamed in chunks.

The input is CSV (UTF-8, or the text encoding given with ``--encoding``), or Parquet when
pyarrow is installed, with one of these column sets (chosen from the header, first match
wins):

* ``birth_utc``: an ISO 8601 instant (``Z`` or an offset; without one it is read as UTC);
* ``date``, ``time`` and ``tz``: a local wall time and an IANA zone;
* ``date``, ``time``, ``lat`` and ``lng``: a local wall time at a point (zone from the point);
* ``date``, ``time`` and ``location``: a local wall time at a place name (geocoded once per
  distinct name, offline by default).

A ``date`` is ``YYYY-MM-DD``, a ``time`` ``H:MM`` or ``HH:MM`` (24-hour; ``:SS`` may
follow). An ``id`` column, if present, is copied to the output. The output (CSV or
Parquet, by the file extension ``.csv`` or ``.parquet``; never the input file) has a
``row`` column (1-based data row of the input), ``id``, the chart columns
(:data:`bodygraph.columnar.COLUMNS`), ``zone`` and ``wall_time`` for local times,
``error_code`` and ``error``. It is written to a temporary file in the same folder and
renamed into place when the job ends well: a job that fails or is interrupted leaves an
earlier output file as it was. A row that cannot be read or calculated keeps its place
with an empty chart, a stable code in ``error_code`` (``EMPTY``, ``INVALID_ENCODING``
(bytes that are not text in the input's encoding; only ``id`` is kept, each such byte
as U+FFFD), ``INVALID_INSTANT``, ``INVALID_DATE``, ``INVALID_TIME``, ``OUT_OF_RANGE``,
``INVALID_COORDINATES``, ``UNKNOWN_ZONE``, ``INVALID_LOCATION``, ``PLACE_NOT_FOUND``,
``GEOCODE_FAILED`` or ``INVALID_ROW``) and the reason in words in ``error``; it is also
reported on stderr with its row number. Memory stays bounded: rows are read, calculated
and written ``--chunk-size`` at a time. With ``--jobs`` N > 1 (default: every core) N
worker processes parse, resolve, calculate and format the chunks while this process cuts
the input into chunks and writes the results in input order, a few chunks in flight; the
output is the same byte for byte whatever the number of jobs.
"""

from bodygraph.batch.errors import BatchError, BatchOptionError
from bodygraph.batch.job import DEFAULT_CHUNK, BatchSummary, default_jobs, run_batch
from bodygraph.batch.readers import MODES, input_mode

__all__ = ["DEFAULT_CHUNK", "MODES", "BatchError", "BatchOptionError", "BatchSummary",
           "default_jobs", "input_mode", "run_batch"]
