"""``bodygraph-server jobs list`` and ``jobs cancel`` (docs/accounts.md, "Admin CLI"): the
asynchronous jobs of the database; ``--json`` prints their stable form. Wired into the
admin parser with :func:`add_job_commands`; a cancel stores its webhook (sent by the service)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from bodygraph_server.cli.argtypes import account_id
from bodygraph_server.cli.console import CommandError, iso, print_json, table

if TYPE_CHECKING:
    from bodygraph_server.billing.accounts import Bookkeeper
    from bodygraph_server.store.base import JobStore
    from bodygraph_server.store.jobs import JobRecord


def _store(book: Bookkeeper) -> JobStore:
    from bodygraph_server.execution.service import job_store
    from bodygraph_server.settings import Settings
    from bodygraph_server.webhooks import record_job_end

    return job_store(book.store, Settings.from_env(), on_end=record_job_end)


def job_to_dict(job: JobRecord) -> dict[str, Any]:
    """The stable JSON form of a job."""
    return {"job_id": job.id, "account_id": job.account_id, "status": job.status.value,
            "kind": job.kind, "total": job.total, "done": job.done, "failed": job.failed,
            "created_at": iso(job.created_at), "finished_at": iso(job.finished_at),
            "expires_at": iso(job.expires_at)}


def _row(job: JobRecord) -> list[object]:
    return [job.id, job.account_id, job.status.value, job.kind,
            f"{job.done:,}/{job.total:,}", f"{job.failed:,}", iso(job.created_at) or ""]


def _list(book: Bookkeeper, args: argparse.Namespace) -> int:
    jobs = _store(book).recent(args.account, limit=args.limit)
    if args.json:
        print_json([job_to_dict(job) for job in jobs])
    elif jobs:
        print(table(["job", "account", "status", "kind", "done", "failed", "created"],
                    [_row(job) for job in jobs]))
    else:
        print("no jobs")
    return 0


def _cancel(book: Bookkeeper, args: argparse.Namespace) -> int:
    job = _store(book).cancel(args.job, None, book.clock.now())
    if job is None:
        raise CommandError(f"no job {args.job}")
    if args.json:
        print_json(job_to_dict(job))
    else:
        print(f"job {job.id}: {job.status.value}, {job.done:,} of {job.total:,} rows done "
              f"({job.failed:,} failed); the credits of the rest are released")
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def add_job_commands(commands: argparse._SubParsersAction[Any]) -> None:
    """``jobs list`` and ``jobs cancel``."""
    jobs = commands.add_parser("jobs", help="list and cancel asynchronous jobs")
    actions = jobs.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the newest jobs, newest first")
    listing.add_argument("--account", type=account_id, default=None,
                         help="only this account's jobs")
    listing.add_argument("--limit", type=_positive, default=100,
                         help="at most this many (default 100)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=_list)
    cancel = actions.add_parser("cancel", help="cancel a job; its rows not done are "
                                "released")
    cancel.add_argument("job", help="the job's id (job_...)")
    cancel.add_argument("--json", action="store_true", help="print JSON")
    cancel.set_defaults(func=_cancel)
