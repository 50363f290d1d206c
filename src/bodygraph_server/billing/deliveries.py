"""The delivery journal: a worker's charges and which of their answers it wrote, in a file
that outlives the worker, so that a dead worker's unanswered charges are withdrawn at once
(docs/accounts.md, "Delivery": the line format, the look for dead workers)."""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import stat
import threading
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable
from contextlib import suppress
from datetime import datetime
from hashlib import sha256
from pathlib import Path
from tempfile import gettempdir

import anyio

from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.policy.clock import from_micros, to_micros
from bodygraph_server.store import StoreError, UsageStatus, sqlite_path

LOG = logging.getLogger("bodygraph_server")

WATCH_INTERVAL = 0.5
"""Seconds between two looks for the journals of dead workers."""
ROTATE_BYTES = 1 << 20
"""A journal past this size is replaced by one holding only the charges still open."""
SUFFIX = ".journal"


class JournalFolderError(Exception):
    """The journals' folder is not a folder of this process's user that only it may write."""

    def __init__(self, folder: Path) -> None:
        super().__init__(f"the delivery journals' folder {folder} is not a folder of this "
                         "user that only it may write: remove it, or choose another "
                         "(journal_dir)")
        self.folder = folder


def journal_folder(database_url: str, parent: str = "") -> Path:
    """Where the workers of one database keep their journals: beside a SQLite file
    (``<file>-deliveries``), else in ``parent`` (empty: the temporary folder) under a
    digest of the URL (the workers of one host see each other's)."""
    if database_url.lower().startswith("sqlite"):
        return Path(f"{sqlite_path(database_url)}-deliveries")
    digest = sha256(database_url.encode()).hexdigest()[:16]
    return Path(parent or gettempdir()) / f"bodygraph-deliveries-{digest}"


def make_folder(folder: Path) -> None:
    """Make ``folder`` (mode 0700) unless it is there (:class:`OSError` if it cannot be),
    and check that it is a folder of this process's user that no one else may write:
    whoever may put a journal there can have its charges withdrawn
    (:class:`JournalFolderError` if not)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    found = os.lstat(folder)
    if (not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid()
            or found.st_mode & 0o022):
        raise JournalFolderError(folder)


class DeliveryJournal:
    """One worker's journal (see the module docstring). Its records are made on the
    event loop's thread (:meth:`claiming` also in bookkeeping threads); :meth:`withdraw`
    and :meth:`recover_dead` may run in a bookkeeping thread."""

    def __init__(self, book: Bookkeeper, folder: Path, keep_for: float) -> None:
        self.book = book
        self.folder = folder
        self.keep_for = keep_for
        """Seconds after which an open charge is settled anyway (the request time-out and
        more): a rotation carries only younger ones over."""
        self.token = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._open: dict[int, float] = {}
        self._fd = -1
        self._path: Path | None = None
        self._serial = 0
        self._written = 0
        self._lock = threading.Lock()  # appends come from the event loop and threads

    # this worker's file

    def open(self) -> None:
        """Create and lock this worker's file (blocking)."""
        make_folder(self.folder)
        self._start_file(())

    def _start_file(self, carried: Iterable[int]) -> None:
        """A new file, locked before it gets its name (a watcher must never take a file
        being made for a dead one's), holding the ``r`` lines of ``carried``."""
        self._serial += 1
        name = f"{self.token}.{self._serial}{SUFFIX}"
        temporary = self.folder / f".{name}.new"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND
                     | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        lines = b"".join(b"r %d\n" % reservation for reservation in carried)
        if lines:
            os.write(fd, lines)
        os.rename(temporary, self.folder / name)
        old, self._fd, self._path, self._written = self._fd, fd, self.folder / name, len(lines)
        if old >= 0:
            os.close(old)

    def _append(self, line: bytes) -> None:
        with self._lock:
            if self._fd < 0:
                return
            os.write(self._fd, line)
            self._written += len(line)
            if self._written > ROTATE_BYTES:
                self._rotate()

    def _rotate(self) -> None:
        """Replace the file with one holding the open charges younger than ``keep_for``;
        until the old one is deleted both are this worker's (read together if it dies)."""
        horizon = time.monotonic() - self.keep_for
        self._open = {r: at for r, at in self._open.items() if at > horizon}
        old = self._path
        self._start_file(self._open)
        if old is not None:
            old.unlink(missing_ok=True)

    def reserved(self, reservation_id: int) -> None:
        """Reservation ``reservation_id`` was made for a request of this worker."""
        self._open[reservation_id] = time.monotonic()
        self._append(b"r %d\n" % reservation_id)

    def claiming(self, key_hash: str, made: datetime) -> None:
        """A reservation claiming the idempotency key ``key_hash`` (its hash) at
        ``made`` is about to be asked for (from any thread): if this worker dies before
        recording it, it is found by the claim's key and instant."""
        line = b"k %s %d\n" % (key_hash.encode("ascii"), to_micros(made))
        with self._lock:
            if self._fd >= 0:
                os.write(self._fd, line)
                self._written += len(line)

    def delivered(self, reservation_id: int) -> None:
        """The answer of ``reservation_id``'s request is being written to its socket (the
        next thing this worker does): its charge stands, unless :meth:`undelivered`."""
        self._open.pop(reservation_id, None)
        self._append(b"s %d\n" % reservation_id)

    def undelivered(self, reservation_id: int) -> None:
        """The answer of ``reservation_id``'s request was not written after all: its
        charge is to be withdrawn (:meth:`withdraw`; the record makes sure of it)."""
        self._open[reservation_id] = time.monotonic()
        self._append(b"u %d\n" % reservation_id)

    def withdraw(self, reservation_id: int) -> bool:
        """The answer of ``reservation_id``'s request was not written (the client was
        gone): release its charge now (blocking; whether that was done). A failure is
        left to the journal: the charge is withdrawn when this worker's file is read (at
        its end, or at its death)."""
        try:
            self.book.store.withdraw(reservation_id, self.book.clock.now())
        except StoreError as exc:
            LOG.warning("charge %d of an undelivered answer not withdrawn yet (%s)",
                        reservation_id, exc)
            return False
        return True

    def settled(self, reservation_id: int) -> None:
        """``reservation_id`` needs no more care from this worker (on the event loop)."""
        self._open.pop(reservation_id, None)

    def close(self) -> None:
        """At the worker's end (blocking): withdraw what this file leaves open, as for a
        dead worker, then delete it."""
        if self._fd < 0 or self._path is None:
            return
        paths = sorted(self.folder.glob(f"{self.token}.*{SUFFIX}"))
        try:
            _settle(self.book, paths)
        except StoreError as exc:  # left for the other workers, or the next to start
            LOG.warning("charges left open at the end not settled (%s)", exc)
        else:
            for path in paths:
                path.unlink(missing_ok=True)
        with self._lock:
            os.close(self._fd)
            self._fd = -1

    # the others' files

    def recover_dead(self) -> int:
        """Settle the journals of dead workers (blocking); how many charges were
        withdrawn. A database error leaves a journal for the next look. One process at a
        time looks (a lock on ``.recovery``): a look that finds another under way waits
        for it, so it never sees a dead worker's charges while they are being settled."""
        try:
            guard = os.open(self.folder / ".recovery", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                            0o600)
        except FileNotFoundError:
            return 0
        try:
            fcntl.flock(guard, fcntl.LOCK_EX)
            return self._recover_all()
        finally:
            os.close(guard)

    def _recover_all(self) -> int:
        by_worker: dict[str, list[Path]] = defaultdict(list)
        try:
            names = os.listdir(self.folder)
        except FileNotFoundError:
            return 0
        for name in names:
            if name.endswith(SUFFIX) and not name.startswith("."):
                token = name.split(".", 1)[0]
                if token != self.token:
                    by_worker[token].append(self.folder / name)
        withdrawn = 0
        for paths in by_worker.values():
            withdrawn += _recover(self.book, sorted(paths))
        if withdrawn:
            LOG.warning("withdrew %d charge(s) of a dead worker", withdrawn)
        return withdrawn


def _recover(book: Bookkeeper, paths: list[Path]) -> int:
    """Settle one worker's files if it is dead (every file's lock can be taken)."""
    held: list[int] = []
    try:
        for path in paths:
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            held.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return 0  # its worker lives
            if os.fstat(fd).st_nlink == 0:
                return 0  # settled meanwhile by another watcher
        withdrawn = _settle(book, paths)
        for path in paths:
            path.unlink(missing_ok=True)
        return withdrawn
    except StoreError as exc:
        LOG.warning("a dead worker's charges not settled yet (%s)", exc)
        return 0
    finally:
        for fd in held:
            os.close(fd)


def _settle(book: Bookkeeper, paths: Iterable[Path]) -> int:
    """Withdraw every charge the files record without its answer written."""
    reserved: set[int] = set()
    answered: set[int] = set()
    claims: list[tuple[str, datetime]] = []  # (key hash, instant of the claim)
    for path in paths:
        with suppress(FileNotFoundError):
            for line in path.read_bytes().splitlines():
                kind, _, number = line.partition(b" ")
                hashed, _, made = number.partition(b" ")
                if kind == b"k" and made.isdigit():
                    claims.append((hashed.decode("ascii"), from_micros(int(made))))
                elif number.isdigit():
                    (answered if kind == b"s" else reserved).add(int(number))
                    if kind == b"u":  # written after its "s": not answered after all
                        answered.discard(int(number))
    for key_hash, instant in claims:  # the reservations made, unrecorded, by their claim
        found = book.store.claimed_reservation(key_hash, instant)
        if found is not None:
            reserved.add(found)
    unanswered = sorted(reserved - answered)
    statuses = book.store.usage_statuses(unanswered) if unanswered else []
    now = book.clock.now()
    return sum(book.store.withdraw(reservation, now)
               for reservation, status in zip(unanswered, statuses, strict=True)
               if status in (UsageStatus.RESERVED, UsageStatus.COMMITTED))


async def watch_deliveries(
    journal: DeliveryJournal,
    run_blocking: Callable[[Callable[[], int]], Awaitable[int]],
    interval: float = WATCH_INTERVAL,
) -> None:
    """:meth:`DeliveryJournal.recover_dead` every ``interval`` seconds until cancelled;
    nothing it raises ends the loop."""
    while True:
        await anyio.sleep(interval)
        try:
            await run_blocking(journal.recover_dead)
        except Exception:
            LOG.exception("looking for dead workers' charges failed; retrying")
