"""What ``lang`` costs a v2 answer (docs/api.md, "Languages"): the ``labels`` added to a
success envelope (``http/language.py``), for one chart and for a batch of 1,000, and a
result's own ``labels(lang)`` (a chart's, a transit's, a connection's); prints a table
(CPU milliseconds of this process, median of the runs; the catalog loaded first).

    .venv/bin/python benchmarks/service_labels.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import bodygraph
from bodygraph.relations import connection, transit
from bodygraph_server.http.envelope import json_response, v2_success
from bodygraph_server.http.language import _labelled


def _median_ms(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def main() -> None:
    start = datetime(1950, 1, 1, tzinfo=UTC)
    charts = [bodygraph.calculate(start + timedelta(days=37 * i, hours=5 * i))
              for i in range(1000)]
    one = json_response(v2_success(charts[0].to_v2(), type_name="ChartResult",
                                   message="Chart generated")).body
    batch = json_response(v2_success({"results": [c.to_v2() for c in charts]},
                                     type_name="ChartBatchResult",
                                     message="Charts generated")).body
    print("| answer | bytes | lang | ms |\n| --- | --- | --- | --- |")
    for name, body, runs in (("one chart", one, 200), ("batch of 1,000", batch, 9)):
        for lang in ("de", "ja"):
            _labelled(body, lang)  # the catalog and the translators, once a process
            took = _median_ms(lambda body=body, lang=lang: _labelled(body, lang), runs)
            print(f"| {name} | {len(body):,} | {lang} | {took:.2f} |")
    at = datetime(2024, 3, 20, 3, 6, tzinfo=UTC)
    results = {"Chart.labels": charts[0], "Transit.labels (natal)": transit(at, natal=charts[0]),
               "Connection.labels": connection(charts[0], charts[1])}
    for name, result in results.items():
        for lang in ("de", "ja"):
            took = _median_ms(lambda result=result, lang=lang: result.labels(lang), 200)
            print(f"| {name} | - | {lang} | {took:.2f} |")


if __name__ == "__main__":
    main()
