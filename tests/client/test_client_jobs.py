"""The client's jobs (``submit_job``, ``job``, ``wait``, ``download``, ``cancel_job``),
sync and async, against the real service: the rows come back in input order in every
format, another account's job is not found, a bad upload is InvalidInput."""

from __future__ import annotations

import csv
import io
import json

import pytest

from bodygraph_client import AsyncClient, Birth, Client, EndpointNotFound, InvalidInput

from .conftest import Service, async_loopback, loopback

BIRTHS = [Birth.at(10.0 + i, 20.0 - i, f"19{60 + i}-0{1 + i % 9}-1{i % 9}", f"1{i % 10}:30")
          for i in range(12)]


def test_submit_wait_download(service: Service) -> None:
    with Client(service.key(), base_url=service.base_url, transport=loopback()) as client:
        accepted = client.submit_job(BIRTHS)
        assert (accepted.status, accepted.total) == ("queued", len(BIRTHS))
        job = client.wait(accepted.job_id, every=0.5, timeout=120)
        assert (job.status, job.done, job.failed) == ("succeeded", len(BIRTHS), 0)
        assert job.ended and job.finished_at
        out = io.BytesIO()
        assert client.download(job.job_id, out) == len(out.getvalue())
        rows = [json.loads(line) for line in out.getvalue().splitlines()]
        assert [row["row"] for row in rows] == list(range(1, len(BIRTHS) + 1))
        out = io.BytesIO()
        client.download(job.job_id, out, result_format="csv")
        table = list(csv.DictReader(io.StringIO(out.getvalue().decode())))
        assert [row["type"] for row in table] == [row["type"] for row in rows]
        out = io.BytesIO()
        client.download(job.job_id, out, result_format="parquet")
        assert out.getvalue().startswith(b"PAR1")
        with (Client(service.key(), base_url=service.base_url, transport=loopback()) as other,
              pytest.raises(EndpointNotFound)):
            other.job(job.job_id)
        with pytest.raises(InvalidInput, match="line 1"):
            client.submit_job(b"not json\n")


@pytest.mark.anyio
async def test_async_submit_wait_download_and_cancel(service: Service) -> None:
    async with AsyncClient(service.key(), base_url=service.base_url,
                           transport=async_loopback()) as client:
        accepted = await client.submit_job(BIRTHS, kind="simple")
        job = await client.wait(accepted.job_id, every=0.5, timeout=120)
        assert job.status == "succeeded" and job.kind == "simple"
        out = io.BytesIO()
        await client.download(job.job_id, out)
        rows = [json.loads(line) for line in out.getvalue().splitlines()]
        assert len(rows) == len(BIRTHS) and "personality_sun" not in rows[0]
        ended = await client.cancel_job(job.job_id)  # ended already: answered as it is
        assert ended.status == "succeeded"
