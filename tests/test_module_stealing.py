"""The suite's xdist scheduler (tests/module_stealing.py): hand-outs and steals end
between modules, and a module is split only when no other worker is busy and its tests
left are worth a second set-up."""

from __future__ import annotations

from typing import Any

import pytest
from module_stealing import ModuleStealing


class Config:
    def getvalue(self, name: str) -> Any:
        return {"tx": ["3*popen"]}[name]


class Worker:
    """What the scheduler asks of an xdist worker, recorded."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.gateway = type("Gateway", (), {"id": name})()
        self.shutting_down = False
        self.sent: list[int] = []
        self.steal_asked: list[int] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        self.sent.extend(indices)

    def send_steal(self, indices: list[int]) -> None:
        self.steal_asked = list(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def scheduled(modules: dict[str, int]) -> tuple[ModuleStealing, list[Worker], list[str]]:
    collection = [f"tests/{name}.py::test_{i}" for name, n in modules.items()
                  for i in range(n)]
    scheduler = ModuleStealing(Config())  # type: ignore[arg-type]
    workers = [Worker(f"gw{i}") for i in range(3)]
    for worker in workers:
        scheduler.add_node(worker)  # type: ignore[arg-type]
        scheduler.add_node_collection(worker, collection)  # type: ignore[arg-type]
    scheduler.schedule()
    return scheduler, workers, collection


def modules_of(collection: list[str], indices: list[int]) -> list[str]:
    return sorted({collection[i].split("::")[0] for i in indices})


def test_the_first_runs_end_between_modules() -> None:
    _, workers, collection = scheduled({"a": 7, "b": 7, "c": 7, "d": 7, "e": 2})
    # An even split would cut after 10 and 20 tests, inside b and c.
    assert [len(w.sent) for w in workers] == [7, 14, 9]
    assert [modules_of(collection, w.sent) for w in workers] == [
        ["tests/a.py"], ["tests/b.py", "tests/c.py"], ["tests/d.py", "tests/e.py"]]


def test_a_steal_takes_whole_modules_from_a_queue_that_has_them() -> None:
    scheduler, workers, collection = scheduled({"a": 4, "b": 20, "c": 4, "d": 2, "e": 3})
    first, second, third = workers
    assert [modules_of(collection, w.sent) for w in workers] == [
        ["tests/a.py"], ["tests/b.py"], ["tests/c.py", "tests/d.py", "tests/e.py"]]
    # The first worker finishes its run. The longest queue (b) is one module: the third
    # worker's back (d and e, from a module's first test on) is taken instead.
    for index in list(first.sent):
        scheduler.mark_test_complete(first, index)  # type: ignore[arg-type]
    assert second.steal_asked == []
    assert modules_of(collection, third.steal_asked) == ["tests/d.py", "tests/e.py"]
    scheduler.remove_pending_tests_from_node(third, third.steal_asked)  # type: ignore[arg-type]
    assert first.sent[4:] == third.steal_asked
    assert modules_of(collection, scheduler.node2pending[third]) == [  # type: ignore[index]
        "tests/c.py"]


@pytest.mark.parametrize(("first_two", "split"), [((1.5, 0.1), False), ((0.25, 0.2), True)])
def test_one_module_left_is_split_only_when_one_worker_is_busy_and_it_pays(
        first_two: tuple[float, float], split: bool) -> None:
    scheduler, workers, _ = scheduled({"a": 30, "b": 30, "c": 30})
    first, second, third = workers
    for index in list(first.sent):
        scheduler.mark_test_complete(first, index, 0.1)  # type: ignore[arg-type]
    # Two workers are busy, each with one module: nothing is split, nobody shuts down.
    assert second.steal_asked == third.steal_asked == []
    assert not first.shutting_down
    # The second runs two tests of its module; the third finishes.
    for index, seconds in zip(second.sent[:2], first_two, strict=True):
        scheduler.mark_test_complete(second, index, seconds)  # type: ignore[arg-type]
    for index in list(third.sent):
        scheduler.mark_test_complete(third, index, 0.1)  # type: ignore[arg-type]
    # Only the second is busy, with 28 tests of one module left. Half of them are worth
    # a second start of the module when its set-up (the first test's excess over the
    # median) is small beside them: (0.25, 0.2) yes, (1.5, 0.1) no.
    assert len(second.steal_asked) == (14 if split else 0)
