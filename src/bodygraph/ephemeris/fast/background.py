"""Loading the compiled engine on a thread of its own while the caller goes on with the
plain-Python kernels (:class:`BackgroundLoad`); the engine decides when to start it."""

from __future__ import annotations

import atexit
from collections.abc import Callable, Iterator
from threading import Event, Lock, Thread, current_thread


class BackgroundLoad:
    """Runs the steps of ``steps()`` (a generator: each ``yield`` ends a step) once, on a
    daemon thread, when :meth:`start` is first called.

    At interpreter exit the load stops after the step it is in (numba's import, or one
    kernel loaded or compiled) and the exit waits for that step: a thread stopped inside
    LLVM's code while the process tears it down could crash the exit. What a step raised
    is kept and raised again, once, by :meth:`raise_failure` in the caller's thread.
    """

    def __init__(self, steps: Callable[[], Iterator[None]], name: str) -> None:
        self._steps = steps
        self._name = name
        self._guard = Lock()
        self._thread: Thread | None = None
        self._stop = Event()
        self._failure: BaseException | None = None

    @property
    def started(self) -> bool:
        """Whether :meth:`start` was called."""
        return self._thread is not None

    def start(self) -> None:
        """Start the thread (once; later calls do nothing)."""
        with self._guard:
            if self._thread is not None:
                return
            self._thread = Thread(target=self._run, name=self._name, daemon=True)
            atexit.register(self.stop)
            self._thread.start()

    def in_thread(self) -> bool:
        """Whether the caller is the loading thread itself."""
        return current_thread() is self._thread

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end (at most ``timeout`` seconds); whether it has ended.
        False also when it was never started."""
        thread = self._thread
        if thread is None:
            return False
        thread.join(timeout)
        return not thread.is_alive()

    def cancel(self) -> None:
        """Have the load stop after its current step (it does not wait)."""
        self._stop.set()

    def stop(self) -> None:
        """Stop after the current step and wait for it (registered for interpreter exit)."""
        self.cancel()
        self.wait()

    def raise_failure(self) -> None:
        """Raise, once, what a step raised (nothing if none did)."""
        if self._failure is None:  # the common case, without the lock
            return
        with self._guard:
            failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def _run(self) -> None:
        try:
            for _ in self._steps():
                if self._stop.is_set():
                    break
        except BaseException as failure:  # kept for the caller: raise_failure()
            with self._guard:
                self._failure = failure
        finally:
            atexit.unregister(self.stop)
