"""A job whose chunks run on a Dask cluster (``BODYGRAPH_DASK_SCHEDULER``), end to end: a
real uvicorn, a real ``distributed.LocalCluster`` of two worker processes; the scheduler
ran the chunks and the rows equal ``bodygraph batch`` computed here (as the local run's
are: tests/server/test_jobs_live.py)."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.store import open_store

from .support import LiveServer, batch_rows, dask_cluster

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

CHUNK_ROWS = 10
BIRTHS = [{"birthdate": f"19{40 + i:02d}-{1 + i % 12:02d}-{1 + (3 * i) % 28:02d}",
           "birthtime": f"{(5 * i) % 24:02d}:{(11 * i) % 60:02d}",
           "lat": round(-60 + (i * 9.1) % 120, 2), "lng": round(-175 + (i * 17.3) % 350, 2)}
          for i in range(35)]
BIRTHS[12] = {"birthdate": "1999-13-01", "birthtime": "10:00", "lat": 0, "lng": 0}


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with dask_cluster() as running:
        yield running


def test_a_jobs_chunks_run_on_the_dask_cluster(cluster: Any, tmp_path: Path) -> None:
    scheduler = cluster.scheduler
    assert "compute_chunk" not in scheduler.task_prefixes
    db_url = f"sqlite:///{tmp_path / 'jobs.sqlite3'}"
    book = Bookkeeper(open_store(db_url))
    env = {"BODYGRAPH_DATABASE_URL": db_url, "BODYGRAPH_GEOCODER": "offline",
           "BODYGRAPH_WARM_UP": "0", "BODYGRAPH_JOB_CHUNK_ROWS": str(CHUNK_ROWS),
           "BODYGRAPH_DASK_SCHEDULER": str(cluster.scheduler_address),
           "BODYGRAPH_RENDER_KEYS": ""}
    server = LiveServer(env, log=tmp_path / "server.log")
    try:
        server.wait_ready()
        key = book.create_account("developer").api_key
        with httpx.Client(base_url=server.base_url, timeout=60,
                          headers={"Authorization": f"Bearer {key}"}) as http:
            upload = "".join(json.dumps(birth) + "\n" for birth in BIRTHS).encode()
            submitted = http.post("/v2/jobs", content=upload,
                                  headers={"Content-Type": "application/x-ndjson"})
            assert submitted.status_code == 202, submitted.text
            job_id = submitted.json()["data"]["jobId"]
            deadline = time.monotonic() + 180
            while (status := http.get(f"/v2/jobs/{job_id}").json()["data"])["status"] in (
                    "queued", "running"):
                assert time.monotonic() < deadline, "the job did not end"
                time.sleep(0.3)
            assert status["status"] == "succeeded", (tmp_path / "server.log").read_text()
            assert (status["done"], status["failed"]) == (len(BIRTHS), 1)
            answer = http.get(f"/v2/jobs/{job_id}/result", headers={"Accept": "text/csv"})
    finally:
        server.stop()
        book.close()
    chunks = -(-len(BIRTHS) // CHUNK_ROWS)
    ran = scheduler.task_prefixes["compute_chunk"].state_counts  # transitions into each
    assert ran["memory"] == chunks and ran["erred"] == 0, dict(ran)
    assert list(csv.DictReader(io.StringIO(answer.text))) == batch_rows(BIRTHS, tmp_path)
