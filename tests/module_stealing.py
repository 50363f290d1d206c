"""xdist's work stealing, cutting only between test modules.

``--dist worksteal`` hands each worker a run of consecutive tests and lets an idle worker
steal the back half of the longest queue. Where such a cut falls inside a module, the
module's fixtures are made in two workers: a server, a browser, an MCP server process or a
Spark session started twice. This scheduler moves every cut (the first hand-out and each
steal) to the nearest boundary between two modules within the same queue, and splits a
module only when no queue has a boundary left, no other worker is busy, and the module's
tests left to steal (estimated from the durations of its tests run so far) take longer
than making its fixtures again.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from xdist.remote import Producer
from xdist.scheduler.worksteal import MIN_PENDING, WorkStealingScheduling
from xdist.workermanage import WorkerController


def module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class ModuleStealing(WorkStealingScheduling):
    """:class:`WorkStealingScheduling` whose hand-outs and steals end on module
    boundaries where the queue has one."""

    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        super().__init__(config, log)
        self._seconds: dict[int, float] = {}  # test index -> its duration, once run

    def _boundary(self, queue: Sequence[int], cut: int, low: int, high: int) -> int:
        """The boundary between two modules in ``queue`` (an index ``i`` in ``[low, high]``
        where ``queue[i - 1]`` and ``queue[i]`` are of different modules, or an end of the
        queue) nearest ``cut``; ``cut`` itself where there is none in the range."""
        for distance in range(max(cut - low, high - cut) + 1):
            for i in (cut - distance, cut + distance):
                if low <= i <= high and self._is_boundary(queue, i):
                    return i
        return cut

    def _is_boundary(self, queue: Sequence[int], i: int) -> bool:
        """Whether a cut before ``queue[i]`` falls between two modules (or at an end)."""
        assert self.collection is not None
        return (i <= 0 or i >= len(queue) or module_of(self.collection[queue[i - 1]])
                != module_of(self.collection[queue[i]]))

    def mark_test_complete(self, node: WorkerController, item_index: int,
                           duration: float | None = None) -> None:
        if duration is not None:
            self._seconds[item_index] = duration
        super().mark_test_complete(node, item_index, duration)

    def _worth_splitting(self, stolen: Sequence[int]) -> bool:
        """Whether the tests ``stolen`` (the back of one module) are worth starting that
        module again in another worker: their estimated time (the median of the module's
        tests run so far, each) is over twice its set-up (how much its slowest test run so
        far took over the median) plus half a second. Unknown until two have run."""
        assert self.collection is not None
        module = module_of(self.collection[stolen[0]])
        seconds = sorted(t for i, t in self._seconds.items()
                         if module_of(self.collection[i]) == module)
        if len(seconds) < 2:
            return False
        median = seconds[(len(seconds) - 1) // 2]
        return median * len(stolen) > 2 * (seconds[-1] - median) + 0.5

    def _send_tests(self, node: WorkerController, num: int) -> None:
        # The first hand-out (and tests given back by a worker that died): end the run at
        # a module boundary, never sending fewer than one test or more than there are.
        if 0 < num < len(self.pending):
            num = self._boundary(self.pending, num, 1, len(self.pending))
        super()._send_tests(node, num)

    def check_schedule(self) -> None:
        """As xdist's, with the stolen tail starting at a module boundary."""
        nodes_up = [(node, pending) for node, pending in self.node2pending.items()
                    if not node.shutting_down]
        idle = [node for node, pending in nodes_up if len(pending) < MIN_PENDING]
        if not idle:
            return
        if self.pending:
            for i, node in enumerate(idle):
                self._send_tests(node, len(self.pending) // (len(idle) - i))
            idle = [node for node, pending in nodes_up if len(pending) < MIN_PENDING]
            if not idle:
                return
        if self.steal_requested_from_node is not None:
            return
        # What each busy worker could give: the back of its queue (it keeps its current
        # test and the next), from the module boundary nearest half of it.
        offers = []
        for node, queue in nodes_up:
            most = max(0, len(queue) - MIN_PENDING)
            num = min(len(queue) // 2, most)
            if num > 0:
                cut = self._boundary(queue, len(queue) - num, len(queue) - most,
                                     len(queue) - 1)
                offers.append((self._is_boundary(queue, cut), len(queue) - cut, node, cut))
        if not offers:
            for node in idle:  # nothing left to steal: the idle workers finish
                node.shutdown()
            return
        whole, _, victim, cut = max(offers, key=lambda offer: offer[:2])
        queue = self.node2pending[victim]
        # Every offer would split a module: split one only when no other worker is busy
        # (while two are, both cores have work and the idle worker may wait), and only
        # when its tests left to steal take longer than making its fixtures again.
        if not whole and (len(nodes_up) - len(idle) >= 2
                          or not self._worth_splitting(queue[cut:])):
            return
        victim.send_steal(queue[cut:])
        self.steal_requested_from_node = victim
