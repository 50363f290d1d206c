"""Worker processes for the batch job: tasks in, results back in the order given, a
bounded number in flight. The workers are forked from the job's process once it has
loaded what they use (the compiled engine, the kernel, the zone finder, the gazetteer),
so they share it copy-on-write instead of loading it again. A worker that dies ends the
job with a one-line error; a worker whose job's process died stops by itself."""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from types import TracebackType
from typing import Any, Generic, TypeVar

from bodygraph.batch.errors import BatchError
from bodygraph.errors import BodygraphError

T = TypeVar("T")
R = TypeVar("R")

#: Seconds between a waiting worker's checks that the job's process is still there.
_POLL = 1.0
#: Blocked while the workers are forked, until each has set its own handlers: Ctrl-C
#: (ignored by the workers) and SIGTERM (their default: they stop at once).
_BLOCKED = {signal.SIGINT, signal.SIGTERM}


def can_fork() -> bool:
    """Whether worker processes may be forked from this process: on Linux, when no other
    thread runs (one holding a lock at the fork would leave it locked in the worker)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


class WorkerPool(Generic[T, R]):
    """``processes`` forked workers computing ``work(task)``."""

    def __init__(self, work: Callable[[T], R], processes: int) -> None:
        context = multiprocessing.get_context("fork")
        self._tasks: multiprocessing.Queue[tuple[int, T] | None] = context.Queue()
        self._workers: list[multiprocessing.process.BaseProcess] = []
        self._results: list[Connection] = []
        parent = os.getpid()
        # Ctrl-C is the job's process's to handle: the workers ignore it, and are forked
        # with it (and SIGTERM) blocked so that none sees it before it is ignored. The
        # objects of this process are kept out of the workers' garbage collections, which
        # would otherwise write to (and so copy) every page holding one (about 35 MB a
        # worker).
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCKED)
        gc.freeze()
        try:
            for _ in range(processes):
                reader, writer = context.Pipe(duplex=False)
                self._results.append(reader)
                worker = context.Process(
                    target=_serve, args=(work, self._tasks, writer, parent, self._results),
                    name="bodygraph-batch-worker", daemon=True)
                worker.start()
                writer.close()
                self._workers.append(worker)
        except BaseException:
            self.close(abort=True)
            raise
        finally:
            gc.unfreeze()  # here only: the workers keep theirs frozen
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def __enter__(self) -> WorkerPool[T, R]:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close(abort=error is not None)

    def map(self, tasks: Iterable[T], ahead: int) -> Iterator[R]:
        """``work(task)`` for each task, in order, with at most ``ahead`` tasks given out
        and not yet returned. An error of the tasks' iterable or of ``work`` is raised
        in its turn, after the results before it."""
        source = iter(tasks)
        done: dict[int, tuple[Any, BaseException | None]] = {}
        given = taken = 0
        failure: BaseException | None = None
        more = True
        while True:
            while more and given - taken < ahead:
                try:
                    self._tasks.put((given, next(source)))
                    given += 1
                except StopIteration:
                    more = False
                except Exception as exc:  # reading the input failed: after the rest
                    failure, more = exc, False
            if taken == given:
                if failure is not None:
                    raise failure
                return
            while taken not in done:
                self._receive(done)
            result, error = done.pop(taken)
            taken += 1
            if error is not None:
                raise error
            yield result

    def close(self, *, abort: bool = False) -> None:
        """Stop the workers: when they are done (``abort``: now)."""
        if not abort:
            for _ in self._workers:
                self._tasks.put(None)
            for worker in self._workers:
                worker.join(timeout=_POLL * 5)
        for worker in self._workers:
            if worker.is_alive():
                worker.terminate()
                worker.join(timeout=_POLL * 5)
            if worker.is_alive():  # pragma: no cover - a worker that ignores SIGTERM
                worker.kill()
                worker.join()
        if abort:
            self._tasks.cancel_join_thread()
        self._tasks.close()
        for reader in self._results:
            reader.close()

    def _receive(self, done: dict[int, tuple[Any, BaseException | None]]) -> None:
        """Wait for results (or for a worker to die)."""
        sentinels = {worker.sentinel: worker for worker in self._workers}
        ready = wait([*self._results, *sentinels])
        for item in ready:
            if isinstance(item, Connection):
                try:
                    index, result, error = item.recv()
                except EOFError:
                    continue  # the worker is gone: its sentinel says how
                done[index] = (result, error)
        for item in ready:
            if isinstance(item, int):
                worker = sentinels[item]
                worker.join()
                raise BatchError(f"a worker process ended unexpectedly ({_how(worker)})")


def _how(worker: multiprocessing.process.BaseProcess) -> str:
    code = worker.exitcode or 0
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _serve(work: Callable[[Any], Any], tasks: multiprocessing.Queue[Any], results: Connection,
           parent: int, readers: list[Connection]) -> None:
    """A worker's loop: tasks from ``tasks``, results to ``results``, until told to stop
    or the job's process ``parent`` is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the job's handler (bodygraph.cli)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _BLOCKED)
    for reader in readers:  # the job's ends: with them closed, a write to a dead job fails
        reader.close()
    while True:
        try:
            task = tasks.get(timeout=_POLL)
        except queue.Empty:
            if os.getppid() != parent:
                return
            continue
        if task is None:
            return
        index, given = task
        reply: tuple[int, Any, Exception | None]
        try:
            reply = (index, work(given), None)
        except Exception as exc:
            reply = (index, None, _portable(exc))
        try:
            results.send(reply)
        except OSError:  # the job's process is gone
            return


def _portable(exc: Exception) -> Exception:
    """``exc`` as the job's process will receive it: itself if it survives pickling,
    else its message in an error of the library (or a RuntimeError for a bug, with the
    worker's traceback in a note)."""
    if not isinstance(exc, BodygraphError):
        exc.add_note("in a batch worker process:\n" + "".join(traceback.format_exception(exc)))
    try:
        copy = pickle.loads(pickle.dumps(exc))
        if type(copy) is type(exc) and str(copy) == str(exc):
            return exc
    except Exception:  # any failure to pickle: fall back to the message
        pass
    if isinstance(exc, BodygraphError):
        return BatchError(str(exc))
    return RuntimeError(f"{type(exc).__name__} in a batch worker process: {exc}")
