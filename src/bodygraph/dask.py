"""Charts for a Dask DataFrame of births: one ``map_partitions`` with a fixed schema.

>>> import dask.dataframe as dd, pandas as pd
>>> births = dd.from_pandas(pd.DataFrame({"birth_utc": pd.to_datetime(
...     ["1980-01-03T08:30Z", "1990-05-14T06:30Z"], utc=True)}), npartitions=2)
>>> charts_frame(births).compute()["profile"].tolist()
['3/5', '5/1']

Every partition is computed by :func:`charts_partition`, a plain function of a pandas
DataFrame, so the result does not depend on how the rows are partitioned, and the same
function serves Spark's ``mapInPandas`` and Ray Data's ``map_batches`` (see
``docs/scale-out.md``). Workers open the ephemeris once per process.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from bodygraph._time import to_aware
from bodygraph.columnar import COLUMNS
from bodygraph.errors import BodygraphError, OutOfRangeError
from bodygraph.model.chart import NodeKind

if TYPE_CHECKING:
    import pandas

OUTPUT_COLUMNS: tuple[str, ...] = (*COLUMNS, "error")
"""The columns of every output partition, in order."""


def meta(index: Any = None) -> pandas.DataFrame:
    """The empty DataFrame describing the output schema (Dask's ``meta``): instants as
    ``datetime64[us, UTC]``, every other column as object (str, None for bad rows)."""
    import pandas

    frame = pandas.DataFrame({
        name: pandas.Series(
            [], dtype="datetime64[us, UTC]" if name in ("birth_utc", "design_utc") else object
        )
        for name in OUTPUT_COLUMNS
    })
    if index is not None:
        frame.index = index[:0]
    return frame


def charts_partition(
    births: pandas.DataFrame,
    *,
    column: str = "birth_utc",
    node: NodeKind = "true",
    ephemeris: str | os.PathLike[str] | None = None,
) -> pandas.DataFrame:
    """Charts of one pandas partition, same index, columns ``OUTPUT_COLUMNS``.

    ``births[column]`` holds instants: tz-aware datetimes (any zone), naive datetimes
    (read as UTC) or ISO 8601 text. A row that cannot be calculated gets empty chart
    columns and its reason in ``error``; it never fails the partition.
    """
    import pandas

    from bodygraph.calculator import default_calculator
    from bodygraph.ephemeris.kernel import resolve_kernel_path

    key = None if ephemeris is None else str(resolve_kernel_path(ephemeris))
    calc = default_calculator(key)
    out = meta()
    n = len(births)
    if n == 0:
        out.index = births.index[:0]
        return out
    utc, errors = _instants(births[column])
    ok = ~np.isnat(utc)
    in_range = np.zeros(n, dtype=bool)
    in_range[ok] = calc.in_range(utc[ok])
    for i in np.flatnonzero(ok & ~in_range).tolist():
        errors[i] = str(OutOfRangeError(to_aware(utc[i]), calc.first_birth, calc.last_birth))
    good = np.flatnonzero(in_range)
    computed = calc.calculate_many(utc[good], node=node).columns()
    data: dict[str, Any] = {}
    for name in COLUMNS:
        if name in ("birth_utc", "design_utc"):
            values = np.full(n, np.datetime64("NaT", "us"))
            values[good] = computed[name]
            data[name] = pandas.Series(values, index=births.index).dt.tz_localize("UTC")
        else:
            column_values = np.full(n, None, dtype=object)
            column_values[good] = computed[name]
            data[name] = pandas.Series(column_values, index=births.index, dtype=object)
    data["error"] = pandas.Series(np.array(errors, dtype=object), index=births.index,
                                  dtype=object)
    return pandas.DataFrame(data, index=births.index)[list(OUTPUT_COLUMNS)]


def _instants(values: pandas.Series) -> tuple[np.ndarray, list[str | None]]:
    """datetime64[us] UTC (NaT where unreadable) and an error per row."""
    import pandas

    errors: list[str | None] = [None] * len(values)
    try:
        parsed = pandas.to_datetime(values, utc=True, errors="coerce", format="ISO8601")
    except (TypeError, ValueError) as exc:  # a column of unusable objects
        raise BodygraphError(f"cannot read the birth instants: {exc}") from exc
    utc = parsed.dt.tz_localize(None).to_numpy(dtype="datetime64[us]")
    for i in np.flatnonzero(np.isnat(utc)).tolist():
        errors[i] = f"cannot read {values.iloc[i]!r} as an instant"
    return utc, errors


def charts_frame(
    births: Any,
    *,
    column: str = "birth_utc",
    node: NodeKind = "true",
    ephemeris: str | os.PathLike[str] | None = None,
) -> Any:
    """A Dask DataFrame of charts from a Dask DataFrame of births (lazy; same
    partitions and index; columns ``OUTPUT_COLUMNS``)."""
    return births.map_partitions(
        charts_partition, column=column, node=node, ephemeris=ephemeris,
        meta=meta(births._meta.index),
    )
