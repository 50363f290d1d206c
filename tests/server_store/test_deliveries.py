"""The delivery journal (``billing/deliveries.py``) on SQLite and PostgreSQL: a worker
process that dies (``os._exit``, no clean-up) leaves charges in every state; another
worker's look settles exactly those it did not answer, and leaves a live worker's alone."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bodygraph_server.billing.accounts import Bookkeeper, Principal, Reservation
from bodygraph_server.billing.deliveries import (
    DeliveryJournal,
    JournalFolderError,
    journal_folder,
)
from bodygraph_server.billing.idempotency import claim_for
from bodygraph_server.policy.clock import ManualClock
from bodygraph_server.store import UsageStatus

#: A worker that makes charges in every state, records them, and dies without a word.
DYING_WORKER = textwrap.dedent('''
    import json, os, sys
    from bodygraph_server.billing import deliveries
    from bodygraph_server.billing.accounts import Bookkeeper
    from bodygraph_server.billing.idempotency import claim_for

    url, folder, rotate = sys.argv[1], sys.argv[2], sys.argv[3] == "rotate"
    if rotate:
        deliveries.ROTATE_BYTES = 64  # a new file every few lines
    book = Bookkeeper.open(url)
    journal = deliveries.DeliveryJournal(book, deliveries.Path(folder), 60.0)
    journal.open()
    principal = book.authenticate(os.environ["KEY"])

    def charge(answered: bool, committed: bool) -> int:
        reservation = book.reserve(principal, "/v2/charts")
        journal.reserved(reservation.id)
        if committed:
            book.commit(reservation)
        if answered:
            journal.delivered(reservation.id)
        return reservation.id

    ids = {"answered": charge(True, True), "unwritten": charge(False, True),
           "pending": charge(False, False)}
    if rotate:
        for _ in range(6):
            charge(True, True)
    # A claim whose reservation the worker never learned of: only "k" is in the file.
    claim = claim_for(book, principal, "key-1", "/v2/charts", b"{}")
    made = book.clock.now()
    journal.claiming(claim.key_hash, made)
    ids["claimed"] = book.store.reserve(principal.account_id, "/v2/charts", made, claim).id
    print(json.dumps(ids), flush=True)
    os._exit(0)
''')


def _die_with_charges(url: str, folder: Path, key: str, *, rotate: bool = False
                      ) -> dict[str, int]:
    import json
    import os

    done = subprocess.run([sys.executable, "-c", DYING_WORKER, url, str(folder),
                           "rotate" if rotate else "-"],
                          env={**os.environ, "KEY": key}, capture_output=True, text=True,
                          check=True, timeout=60)
    result: dict[str, int] = json.loads(done.stdout)
    return result


def _statuses(book: Bookkeeper, ids: dict[str, int]) -> dict[str, UsageStatus | None]:
    found = book.store.usage_statuses(list(ids.values()))
    return dict(zip(ids, found, strict=True))


def test_a_dead_workers_unanswered_charges_are_withdrawn(
    db_url: str, book: Bookkeeper, clock: ManualClock, tmp_path: Path
) -> None:
    clock.set(datetime.now(UTC))  # the dying worker's clock is the system's
    issued = book.create_account("developer")
    balance = issued.account.balance
    folder = tmp_path / "journals"
    survivor = DeliveryJournal(book, folder, 60.0)
    survivor.open()
    try:
        ids = _die_with_charges(db_url, folder, issued.api_key)
        assert _statuses(book, ids) == {
            "answered": UsageStatus.COMMITTED, "unwritten": UsageStatus.COMMITTED,
            "pending": UsageStatus.RESERVED, "claimed": UsageStatus.RESERVED}
        assert survivor.recover_dead() == 3
        assert _statuses(book, ids) == {
            "answered": UsageStatus.COMMITTED, "unwritten": UsageStatus.RELEASED,
            "pending": UsageStatus.RELEASED, "claimed": UsageStatus.RELEASED}
        account = book.account(issued.account.id)
        assert account.balance == balance - 1  # only the answered call is paid for
        assert book.audit(issued.account.id).balanced
        assert survivor.recover_dead() == 0  # settled once; its files are gone
        assert sorted(p.name for p in folder.iterdir()) == [
            ".recovery", f"{survivor.token}.1.journal"]
    finally:
        survivor.close()
    assert [p.name for p in folder.iterdir()] == [".recovery"]  # its end removes its own


def test_a_rotated_journal_keeps_the_open_charges(
    db_url: str, book: Bookkeeper, clock: ManualClock, tmp_path: Path
) -> None:
    clock.set(datetime.now(UTC))
    issued = book.create_account("developer")
    folder = tmp_path / "journals"
    survivor = DeliveryJournal(book, folder, 60.0)
    survivor.open()
    try:
        ids = _die_with_charges(db_url, folder, issued.api_key, rotate=True)
        assert survivor.recover_dead() == 3
        statuses = _statuses(book, ids)
        assert statuses["answered"] is UsageStatus.COMMITTED
        assert statuses["unwritten"] is statuses["pending"] is UsageStatus.RELEASED
        assert book.usage(issued.account.id)[-1].calls == 7  # the answered ones
    finally:
        survivor.close()


def test_a_live_workers_journal_is_left_alone(book: Bookkeeper, tmp_path: Path) -> None:
    issued = book.create_account("developer")
    principal = book.authenticate(issued.api_key)
    assert isinstance(principal, Principal)
    folder = tmp_path / "journals"
    live, other = DeliveryJournal(book, folder, 60.0), DeliveryJournal(book, folder, 60.0)
    live.open()
    other.open()
    try:
        reservation = book.reserve(principal, "/v2/charts")
        assert isinstance(reservation, Reservation)
        live.reserved(reservation.id)
        claim = claim_for(book, principal, "k", "/v2/charts", b"")
        live.claiming(claim.key_hash, book.clock.now())
        assert other.recover_dead() == 0
        assert book.store.usage_statuses([reservation.id]) == [UsageStatus.RESERVED]
    finally:
        other.close()
        live.close()  # its own end settles what it left open: the pending reservation
    assert book.store.usage_statuses([reservation.id]) == [UsageStatus.RELEASED]


def test_journal_folders(tmp_path: Path) -> None:
    assert journal_folder(f"sqlite:///{tmp_path}/b.sqlite3") == Path(
        f"{tmp_path}/b.sqlite3-deliveries")
    first = journal_folder("postgresql://postgres@127.0.0.1:5432/a")
    assert first.name.startswith("bodygraph-deliveries-")
    assert first != journal_folder("postgresql://postgres@127.0.0.1:5432/b")
    chosen = journal_folder("postgresql://postgres@127.0.0.1:5432/a", str(tmp_path))
    assert chosen == tmp_path / first.name


@pytest.mark.parametrize("made", ["open to others", "a link"])
def test_a_folder_others_may_write_is_refused(book: Bookkeeper, tmp_path: Path,
                                              made: str) -> None:
    """Whoever may put a journal in the folder can have its charges withdrawn: a folder
    that is not this user's alone (another user's, made first in a shared temporary
    folder) stops the journal before any file is written there."""
    folder = tmp_path / "journals"
    if made == "a link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        folder.symlink_to(tmp_path / "elsewhere")
    else:
        folder.mkdir()
        folder.chmod(0o777)
    with pytest.raises(JournalFolderError, match="only it may write"):
        DeliveryJournal(book, folder, 60.0).open()
    assert not list(folder.iterdir())
    made_here = tmp_path / "made" / "journals"
    DeliveryJournal(book, made_here, 60.0).open()  # made when missing, for this user only
    assert made_here.stat().st_mode & 0o777 == 0o700 and made_here.stat().st_uid == os.geteuid()
