"""The Spark recipe of docs/scale-out.md (``mapInPandas`` over ``charts_partition``), run
on a local Spark session: the charts equal ``calculate_many``'s. Needs Java (Spark runs
on the JVM): skipped, saying so, where there is none."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

import bodygraph
from bodygraph.dask import OUTPUT_COLUMNS, charts_partition

if TYPE_CHECKING:  # pandas is imported by the test, not when every worker collects this
    import pandas as pd

pytestmark = [
    pytest.mark.slow,
    pytest.mark.spark,
    # About 10 s on a quiet machine (JVM start, one Python worker); past the suite's 60 s
    # when the machine is loaded, like the other tests that start servers.
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        shutil.which("java") is None and not os.environ.get("JAVA_HOME"),
        reason="Spark needs a Java runtime (17 or later): no `java` on PATH and no JAVA_HOME",
    ),
    # PySpark 4.x says it does not yet fully support pandas 3, and its Arrow conversion
    # passes pandas 3 a deprecated keyword; what this test uses works.
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
    pytest.mark.filterwarnings("ignore:The copy keyword is deprecated"),
]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # Set up for a small job started once: one task at a time (one Python worker to
    # start) over two partitions; no web UI, no adaptive planning and no whole-stage code
    # generation (Janino compiling Java code for 150 rows); a JVM that compiles little,
    # collects simply and does not verify Spark's own classes.
    session = (
        SparkSession.builder.master("local[1]")
        .appName("bodygraph-tests")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.codegen.wholeStage", "false")
        # Batches of at most 16 rows: a worker computes them as plain Python (no numba
        # to load in each worker; the same numbers, see tests/fast/test_plain.py).
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "16")
        .config("spark.driver.memory", "512m")
        .config("spark.driver.extraJavaOptions",
                "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:+UnlockDiagnosticVMOptions"
                " -XX:-BytecodeVerificationRemote")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _recipe(spark: Any, births: Any) -> Any:
    """The code of docs/scale-out.md, as written there."""
    from pyspark.sql.types import StringType, StructField, StructType, TimestampType

    schema = StructType([
        StructField(name, TimestampType() if name in ("birth_utc", "design_utc")
                    else StringType())
        for name in OUTPUT_COLUMNS
    ])

    def charts(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:  # each a pandas DataFrame
            yield charts_partition(batch).reset_index(drop=True)

    return births.select("birth_utc").mapInPandas(charts, schema=schema)


def test_map_in_pandas_gives_the_charts_of_calculate_many(spark: Any) -> None:
    import pandas as pd

    rng = np.random.default_rng(61)
    utc = np.sort(rng.integers(np.datetime64("1801-01-01", "us").astype(np.int64),
                               np.datetime64("2199-01-01", "us").astype(np.int64), 150)
                  ).astype("datetime64[us]")
    text = [f"{np.datetime_as_string(u, unit='us')}Z" for u in utc]
    births = spark.createDataFrame(
        pd.DataFrame({"birth_utc": [*text, "not a date", "1700-01-01T00:00:00Z"]})
    )
    assert births.rdd.getNumPartitions() == 2  # spark.default.parallelism, no shuffle
    got = _recipe(spark, births).toPandas()
    assert list(got.columns) == list(OUTPUT_COLUMNS)
    assert len(got) == len(utc) + 2
    errors = got.loc[got["birth_utc"].isna(), "error"].tolist()
    assert sorted(error.split(" ")[0] for error in errors) == [
        "1700-01-01T00:00:00+00:00", "cannot"]
    good = got[got["birth_utc"].notna()].sort_values("birth_utc").reset_index(drop=True)
    expected = bodygraph.calculate_many(utc).columns()
    assert np.array_equal(
        good["birth_utc"].dt.tz_localize(None).to_numpy("datetime64[us]"), utc)
    assert np.array_equal(
        good["design_utc"].dt.tz_localize(None).to_numpy("datetime64[us]"),
        expected["design_utc"])
    for name in OUTPUT_COLUMNS:
        if name not in ("birth_utc", "design_utc", "error"):
            assert good[name].tolist() == list(expected[name]), name
    assert good["error"].isna().all()
