"""``bodygraph-server jobs list`` and ``jobs cancel`` (docs/accounts.md, "Admin CLI"): the
asynchronous jobs of the database; ``--json`` prints their stable form. Wired into the
admin parser with :func:`add_job_commands`; a cancel stores its webhook (sent by the service)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from bodygraph.catalog.numbers import number_text
from bodygraph.catalog.translations import catalog
from bodygraph_server.cli.argtypes import NOT_POSITIVE, account_id
from bodygraph_server.cli.console import CommandError, iso, print_json, table, words

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


def _row(job: JobRecord, lang: str) -> list[object]:
    return [job.id, job.account_id, job.status.value, job.kind,
            f"{number_text(job.done, lang)}/{number_text(job.total, lang)}",
            number_text(job.failed, lang), iso(job.created_at) or ""]


def _list(book: Bookkeeper, args: argparse.Namespace) -> int:
    jobs = _store(book).recent(args.account, limit=args.limit)
    tr = words(args)
    if args.json:
        print_json([job_to_dict(job) for job in jobs])
    elif jobs:
        print(table([tr.pgettext("admin", "job"), tr.pgettext("admin", "account"),
                     tr.pgettext("admin", "status"), tr.pgettext("admin", "kind"),
                     tr.pgettext("admin", "done"), tr.pgettext("admin", "failed"),
                     tr.pgettext("admin", "created")],
                    [_row(job, args.lang) for job in jobs]))
    else:
        print(tr.pgettext("admin", "no jobs"))
    return 0


def _cancel(book: Bookkeeper, args: argparse.Namespace) -> int:
    job = _store(book).cancel(args.job, None, book.clock.now())
    if job is None:
        raise CommandError(words(args).pgettext("admin", "no job {job}").format(job=args.job))
    if args.json:
        print_json(job_to_dict(job))
    else:
        print(words(args).pgettext(
            "admin", "job {job}: {status}, {done} of {total} rows done ({failed} failed); the "
            "credits of the rest are released").format(
                job=job.id, status=job.status.value, done=number_text(job.done, args.lang),
                total=number_text(job.total, args.lang),
                failed=number_text(job.failed, args.lang)))
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(NOT_POSITIVE.format(text=repr(text)))
    return value


def add_job_commands(commands: argparse._SubParsersAction[Any],
                     lang: str = "en") -> None:
    """``jobs list`` and ``jobs cancel``, their help in ``lang``."""
    tr = catalog(lang)
    jobs = commands.add_parser("jobs", help=tr.pgettext("admin", "list and cancel asynchronous "
                                                        "jobs"))
    actions = jobs.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help=tr.pgettext("admin", "the newest jobs, newest "
                                                          "first"))
    listing.add_argument("--account", type=account_id, default=None,
                         help=tr.pgettext("admin", "only this account's jobs"))
    listing.add_argument("--limit", type=_positive, default=100,
                         help=tr.pgettext("admin", "at most this many (default {count})")
                         .format(count=number_text(100, lang)))
    listing.add_argument("--json", action="store_true", help=tr.pgettext("admin", "print JSON"))
    listing.set_defaults(func=_list)
    cancel = actions.add_parser("cancel", help=tr.pgettext(
        "admin", "cancel a job; its rows not done are released"))
    cancel.add_argument("job", help=tr.pgettext("admin", "the job's id (job_...)"))
    cancel.add_argument("--json", action="store_true", help=tr.pgettext("admin", "print JSON"))
    cancel.set_defaults(func=_cancel)
