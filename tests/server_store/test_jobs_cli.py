"""``bodygraph-server jobs list`` and ``jobs cancel`` on SQLite and PostgreSQL: the jobs
of the database (of one account with ``--account``), a cancel releasing the rows not
done, a one-line error for an unknown job."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.cli import admin
from bodygraph_server.store.jobs import Created, NewJob, SqlJobs
from bodygraph_server.store.webhook_deliveries import SqlWebhookOutbox


def _job(book: Bookkeeper, account: int, rows: int, callback: str | None = None) -> str:
    jobs = SqlJobs(book.store, retention=timedelta(days=7), lease=timedelta(seconds=60))
    created = jobs.create(NewJob(account_id=account, kind="chart", header="birth_utc",
                                 chunks=[(rows, b"x")], callback_url=callback),
                          book.clock.now())
    assert isinstance(created, Created)
    return created.job.id


def test_list_and_cancel(db_url: str, book: Bookkeeper,
                         capsys: pytest.CaptureFixture[str]) -> None:
    first = book.create_account("developer").account
    second = book.create_account("developer").account
    mine = _job(book, first.id, 5, callback="https://hooks.example.com/jobs")
    theirs = _job(book, second.id, 3)
    assert admin.main(["--database-url", db_url, "jobs", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {job["job_id"] for job in listed} == {mine, theirs}
    assert admin.main(["--database-url", db_url, "jobs", "list", "--account",
                       str(first.id), "--json"]) == 0
    only = json.loads(capsys.readouterr().out)
    assert [(job["job_id"], job["status"], job["total"]) for job in only] == [
        (mine, "queued", 5)]
    assert admin.main(["--database-url", db_url, "jobs", "list"]) == 0
    assert mine in capsys.readouterr().out
    assert book.account(first.id).balance == first.balance - 5
    assert admin.main(["--database-url", db_url, "jobs", "cancel", mine]) == 0
    assert "cancelled" in capsys.readouterr().out
    delivery = SqlWebhookOutbox(book.store).find(mine)  # its webhook, for the service to send
    assert delivery is not None and json.loads(delivery.body)["type"] == "job.cancelled"
    with book.store.read_transaction() as tx:  # the command runs on today's clock
        statuses = tx.rows("SELECT status, SUM(calls) AS n FROM usage_log "
                           "WHERE account_id = ? GROUP BY status", (first.id,))
    assert [(row.status, int(row.n)) for row in statuses] == [("released", 5)]
    assert admin.main(["--database-url", db_url, "jobs", "cancel", mine, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "cancelled"
    assert admin.main(["--database-url", db_url, "jobs", "cancel", "job_nothing"]) == 1
    err = capsys.readouterr().err
    assert "no job job_nothing" in err and len(err.strip().splitlines()) == 1
