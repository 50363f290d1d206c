"""``kill -9`` of service workers under load (``bodygraph-server serve``'s 2 workers on
SQLite and on PostgreSQL, a database of the test's own): every charge is an answer the
client received whole, and a request cut by a kill, retried with its Idempotency-Key, is
served within seconds (its worker's claims are released when its death is seen, not at
the sweep 45 s later).

The guarantee checked (docs/accounts.md, "Delivery"): a call is charged if and only if the
server wrote its whole answer to the socket. The client reads every answer it gets; on
loopback a written answer reaches it even when its worker dies next. So the charges
committed equal the client's complete 200 answers (a key's answers counted once: a replay
is not charged).
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from server.support import LiveServer, json_headers, tls_context

from bodygraph_server.billing.accounts import Bookkeeper

# Three kills a backend, each waiting for the survivor: minutes on a busy machine.
pytestmark = [pytest.mark.slow, pytest.mark.faults, pytest.mark.timeout(240)]

PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
BODY = {"birthdate": "1990-07-15", "birthtime": "14:30", "lat": 52.52, "lng": 13.405}
CLIENTS = 6
#: Accounts each client takes turns with (each key may make 100 calls a minute).
ACCOUNTS_PER_CLIENT = 25
#: From the second kill on, the clients that reconnected to the survivor are all on the
#: older worker, keyed ones among them: three kills cut keyed and unkeyed calls as five
#: did, for two worker start-ups (and the load meanwhile) less.
KILLS = 3
#: Seconds at least between two kills.
KILL_EVERY = 0.3
#: A retry of a cut request must be answered within this many seconds of its cut (the
#: sweep would take 45 s and more).
RETRY_LIMIT = 10.0


@dataclass
class Load:
    """CLIENTS threads posting charts until stopped; the even ones with a fresh
    Idempotency-Key per call, retried with the same key after a cut until answered."""

    base_url: str
    keys: list[str]
    unkeyed_answers: list[int] = field(default_factory=list)
    keyed_answers: dict[str, int] = field(default_factory=dict)
    retry_delays: list[float] = field(default_factory=list)
    cuts: int = 0
    unkeyed_cuts: list[int] = field(default_factory=list)
    trails: list[list[tuple[float, int | None]]] = field(default_factory=list)
    statuses: set[int] = field(default_factory=set)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _post(self, http: httpx.Client, account: int, key: str | None) -> int | None:
        """The status of a complete answer, None if the connection was cut."""
        try:
            response = http.post("/v2/charts/coordinates", json=BODY,
                                 headers=json_headers(self.keys[account], key))
        except httpx.TransportError:
            with self._lock:
                self.cuts += 1
                if key is None:
                    self.unkeyed_cuts[account] += 1
            return None
        with self._lock:
            self.statuses.add(response.status_code)
            if response.status_code == 200:
                if key is None:
                    self.unkeyed_answers[account] += 1
                else:
                    self.keyed_answers[key] = account
        return response.status_code

    def _client(self, index: int) -> None:
        turn = 0
        keyed = index % 2 == 0
        with httpx.Client(base_url=self.base_url, timeout=30, verify=tls_context()) as http:
            while not self._stop.is_set():
                account = index + CLIENTS * (turn % ACCOUNTS_PER_CLIENT)
                turn += 1
                key = f"kill-{secrets.token_hex(8)}" if keyed else None
                if self._post(http, account, key) is not None or key is None:
                    continue
                cut = time.monotonic()  # retried until answered (or the limit passed)
                trail = []
                while time.monotonic() - cut < RETRY_LIMIT + 5:
                    status = self._post(http, account, key)
                    trail.append((round(time.monotonic() - cut, 2), status))
                    if status == 200:
                        break
                    time.sleep(0.1)
                with self._lock:
                    self.retry_delays.append(time.monotonic() - cut)
                    self.trails.append(trail)

    @property
    def answers(self) -> int:
        with self._lock:
            return sum(self.unkeyed_answers) + len(self.keyed_answers)

    def run(self) -> Iterator[None]:
        self.unkeyed_answers = [0] * len(self.keys)
        self.unkeyed_cuts = [0] * len(self.keys)
        threads = [threading.Thread(target=self._client, args=(i,)) for i in range(CLIENTS)]
        for thread in threads:
            thread.start()
        try:
            yield
        finally:
            self._stop.set()
            for thread in threads:
                thread.join(RETRY_LIMIT + 30)


@dataclass(frozen=True)
class Worker:
    """A worker process: its id and its start (clock ticks since boot)."""

    pid: int
    started: int


def _workers(server: LiveServer) -> list[Worker]:
    """The supervisor's live worker processes, oldest first (not multiprocessing's
    resource tracker, not a killed worker not yet reaped), from /proc."""
    proc = Path("/proc")
    found = []
    for child in (proc / str(server.pid) / "task" / str(server.pid) / "children"
                  ).read_text().split():
        try:
            stat = (proc / child / "stat").read_text()
            cmdline = (proc / child / "cmdline").read_bytes()
        except FileNotFoundError:
            continue  # ended meanwhile
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (name) "
        if fields[0] != "Z" and b"resource_tracker" not in cmdline:
            found.append(Worker(int(child), int(fields[19])))
    return sorted(found, key=lambda worker: worker.started)


def _all_serving(server: LiveServer, workers: list[Worker]) -> bool:
    """Whether ``workers`` have all finished their start-up (by the server's log: each
    announced its start, and as many start-ups completed as began)."""
    log = server.log_text()
    started = log.count("Started server process")
    return (all(f"Started server process [{worker.pid}]" in log for worker in workers)
            and log.count("Application startup complete") == started)


def _kill_workers(server: LiveServer, load: Load) -> int:
    """KILLS times: once both workers serve and answers flow, kill -9 the older one (the
    supervisor starts another)."""
    killed = 0
    while killed < KILLS:
        before = load.answers
        deadline = time.monotonic() + 30
        while True:
            workers = _workers(server)
            if len(workers) == 2 and _all_serving(server, workers) and load.answers >= before + 5:
                break
            assert time.monotonic() < deadline, "no answers between two kills"
            time.sleep(0.02)
        os.kill(workers[0].pid, signal.SIGKILL)
        killed += 1
        time.sleep(KILL_EVERY)
    return killed


def _committed(book: Bookkeeper, accounts: list[int]) -> list[int]:
    return [book.usage(account)[-1].calls for account in accounts]


def _run(url: str, tmp: Path) -> None:
    book = Bookkeeper.open(url)
    try:
        issued = [book.create_account("developer")
                  for _ in range(CLIENTS * ACCOUNTS_PER_CLIENT)]
        accounts = [i.account.id for i in issued]
        server = LiveServer({"BODYGRAPH_DATABASE_URL": url, "BODYGRAPH_WARM_UP": "0",
                             "BODYGRAPH_ACCESS_LOG": "0"}, workers=2, log=tmp / "server.log")
        try:
            server.wait_ready()
            load = Load(server.base_url, [i.api_key for i in issued])
            runner = load.run()
            next(runner)
            try:
                assert _kill_workers(server, load) == KILLS
                # Every answer cut by the last kill is retried (or it gave up).
            finally:
                runner.close()
            # 503: the machine too slow to hand a PostgreSQL connection within 1 s (an
            # outage answer, nothing charged); 409: a claim held past the time-out.
            assert load.statuses <= {200, 409, 503}, load.statuses
            assert load.cuts, "no kill cut a request"
            assert load.retry_delays, "no keyed request was cut"
            assert max(load.retry_delays) < RETRY_LIMIT, load.trails  # (seconds, status)
            # The charges of the last dead worker are withdrawn by the survivor: wait a
            # moment for them, then the books must match the answers: exactly for the
            # keyed calls (retried until answered), and for the unkeyed ones up to the
            # calls a kill cut, each of which may have died in the window docs/accounts.md
            # ("Delivery") leaves uncovered: after its `s` line, before the kernel had it.
            expected = [load.unkeyed_answers[i]
                        + sum(1 for a in load.keyed_answers.values() if a == i)
                        for i in range(len(accounts))]
            allowed = [e + load.unkeyed_cuts[i] for i, e in enumerate(expected)]
            deadline = time.monotonic() + 10
            while _committed(book, accounts) != expected and time.monotonic() < deadline:
                time.sleep(0.2)
            got = _committed(book, accounts)
            wrong = [(i, g, e, a) for i, (g, e, a)
                     in enumerate(zip(got, expected, allowed, strict=True))
                     if not e <= g <= a]
            assert not wrong, wrong  # (account, charged, answered, answered + cut)
            for account in accounts:
                assert book.audit(account).balanced
        finally:
            server.stop()
        assert "Traceback" not in server.log_text()
    finally:
        book.close()


def test_sqlite_workers_killed(tmp_path: Path) -> None:
    _run(f"sqlite:///{tmp_path / 'book.sqlite3'}", tmp_path)



def test_a_client_gone_before_its_answer_is_not_charged(tmp_path: Path) -> None:
    """A client that hangs up while its (slow) call is computed gets no answer, so it pays
    nothing: the worker sees the answer was not written and withdraws the charge."""
    url = f"sqlite:///{tmp_path / 'book.sqlite3'}"
    book = Bookkeeper.open(url)
    try:
        issued = book.create_account("developer")
        account = issued.account.id
        server = LiveServer({"BODYGRAPH_DATABASE_URL": url, "BODYGRAPH_WARM_UP": "0",
                             "BODYGRAPH_ACCESS_LOG": "0"}, log=tmp_path / "server.log")
        try:
            server.wait_ready()
            body = (b'{"from": "2001-01-01", "to": "2001-12-31", "level": "line"}')
            head = (f"POST /v2/calendar HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"Authorization: Bearer {issued.api_key}\r\n"
                    f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
                sock.sendall(head.encode("ascii") + body)
                deadline = time.monotonic() + 30
                while book.usage(account)[-1].pending == 0:  # its credit is reserved
                    assert time.monotonic() < deadline, "the call was never charged"
                    time.sleep(0.005)
            # The client is gone; the call goes on, is committed, then finds its answer
            # unwritten and withdraws the charge (the old code kept it).
            deadline = time.monotonic() + 60
            while book.usage(account)[-1].pending and time.monotonic() < deadline:
                time.sleep(0.05)
            deadline = time.monotonic() + 10
            while book.usage(account)[-1].calls and time.monotonic() < deadline:
                time.sleep(0.05)
            usage = book.usage(account)[-1]
            assert (usage.calls, usage.credits, usage.pending) == (0, 0, 0)
            assert book.account(account).balance == issued.account.balance
            assert book.audit(account).balanced
        finally:
            server.stop()
        assert "Traceback" not in server.log_text()
    finally:
        book.close()
