"""CPU time of other processes, read from ``/proc`` (Linux): a started service's process
tree, and the PostgreSQL backends serving one database.

Counts processes alive at the moment of reading; take readings before and after a run
and subtract (processes that end in between drop out, so keep the service running).
"""

from __future__ import annotations

import os
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: str) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a process, or None if it has gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2:].split()  # after "pid (name) "
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and every process below it."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := _stat(entry)) is not None:
            parents[int(entry)], cpu[int(entry)] = found
    total = 0.0
    for pid, seconds in cpu.items():
        walk = pid
        while walk > 1 and walk != root:
            walk = parents.get(walk, 0)
        total += seconds if walk == root else 0.0
    return total


def backend_cpu(database: str) -> float:
    """CPU seconds of the PostgreSQL backends connected to ``database`` (their command
    lines read ``postgres: [<cluster>: ]<user> <database> <client> <state>``; the
    server's own processes, such as the WAL writer, are not counted)."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        words = command.replace("\0", " ").split()
        if words[:1] == ["postgres:"] and database in words[2:4]:
            found = _stat(entry)
            total += found[1] if found is not None else 0.0
    return total
