"""bodygraph.dask on a real dask.distributed LocalCluster: partitioning never matters."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC
from typing import Any

import numpy as np
import pytest

import bodygraph
from bodygraph.dask import OUTPUT_COLUMNS, charts_frame, charts_partition, meta

from .helpers import random_births

# pandas, dask and distributed are imported by the fixtures, not when the module is
# collected: every pytest worker collects every module, and they take over a second.


@pytest.fixture(scope="module")
def pd() -> Any:
    import pandas

    return pandas


@pytest.fixture(scope="module")
def dd() -> Any:
    import dask.dataframe

    return dask.dataframe


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as connected:
        yield connected


def _births(pd: Any) -> Any:
    instants = pd.Series(random_births(60, seed=31)).dt.tz_localize("UTC")
    text = ["1980-01-03T08:30:00Z", "not a time", "1650-01-01T00:00:00Z"]
    values = [*instants.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ").tolist(), *text]
    return pd.DataFrame({"birth_utc": values, "id": range(len(values))},
                        index=pd.RangeIndex(100, 100 + len(values)))


def test_partitioning_does_not_change_the_result(client: object, pd: Any, dd: Any) -> None:
    births = _births(pd)
    results = []
    for parts in (1, 4, 9):
        frame = charts_frame(dd.from_pandas(births, npartitions=parts))
        assert list(frame.columns) == list(OUTPUT_COLUMNS)
        results.append(frame.compute())
    for other in results[1:]:
        pd.testing.assert_frame_equal(results[0], other)
    result = results[0]
    assert list(result.index) == list(births.index)
    assert list(result.dtypes.astype(str)) == list(meta().dtypes.astype(str))
    assert result["error"].isna().sum() == 61
    assert result["error"].iloc[61].startswith("cannot read ")
    assert "is outside the supported range" in result["error"].iloc[62]
    assert "Error" not in result["error"].iloc[61] + result["error"].iloc[62]
    for i in (0, 17, 59):
        birth = result["birth_utc"].iloc[i].to_pydatetime()
        chart = bodygraph.calculate(birth)
        assert birth == np.datetime64(births["birth_utc"].iloc[i].rstrip("Z")).item().replace(
            tzinfo=UTC)
        assert result["profile"].iloc[i] == chart.profile
        assert result["incarnation_cross"].iloc[i] == chart.incarnation_cross
        assert result["design_utc"].iloc[i].to_pydatetime() == chart.design_utc


def test_partition_function_alone(pd: Any) -> None:
    births = _births(pd)
    whole = charts_partition(births)
    halves = pd.concat([charts_partition(births.iloc[:30]), charts_partition(births.iloc[30:])])
    pd.testing.assert_frame_equal(whole, halves)
    empty = charts_partition(births.iloc[:0])
    assert list(empty.columns) == list(OUTPUT_COLUMNS) and len(empty) == 0
