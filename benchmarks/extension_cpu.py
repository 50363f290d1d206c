"""CPU per request of each extension endpoint, against a chart's.

Runs the app in this process (its lifespan, an httpx client over ASGI, SQLite in a
temporary folder, offline geocoder, the engine warmed up first) and sends the requests
one at a time, each a different random input (births 1900-2099; calendar years
1800-2199), reading the process's CPU time (every thread: the computation runs in a
worker thread) around each. Calendar rows: *cold* asks each time for a year no request
asked before; *warm* asks again for the years the cold row asked (the months shared by
the service since the calendar cache; the same work again before it).

    .venv/bin/python benchmarks/extension_cpu.py            # --requests 20

Prints a Markdown table: median and 90th-percentile CPU milliseconds per request, and the
median in charts (the median of ``/v2/charts/coordinates`` in the same run).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import httpx

Body = dict[str, Any]


def birth(rng: random.Random) -> Body:
    return {"birthdate": f"{rng.randint(1900, 2099)}-{rng.randint(1, 12):02d}-"
                         f"{rng.randint(1, 28):02d}",
            "birthtime": f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
            "lat": round(rng.uniform(-60, 60), 3), "lng": round(rng.uniform(-180, 180), 3)}


def calendar_years(rng: random.Random, count: int) -> list[int]:
    return rng.sample(range(1801, 2199), count)


def cases(rng: random.Random, n: int) -> list[tuple[str, str, Callable[[int], Body]]]:
    gate_years, line_years = calendar_years(rng, n), calendar_years(rng, n)

    def year(years: list[int], level: str) -> Callable[[int], Body]:
        return lambda i: {"from": f"{years[i]}-01-01", "to": f"{years[i]}-12-31",
                          "level": level}

    def search(days: int) -> Callable[[int], Body]:
        def make(i: int) -> Body:
            one = birth(rng)
            first = date.fromisoformat(one["birthdate"])
            return {"date": one["birthdate"],
                    "toDate": str(first + timedelta(days=days - 1)),
                    "lat": one["lat"], "lng": one["lng"],
                    "constraints": {"profile": rng.choice(["1/3", "3/5", "4/6", "6/2"]),
                                    "type": "Generator", "centers": ["Throat"]}}
        return make

    def cycles(i: int) -> Body:
        one = birth(rng)
        return {**one, "year": int(one["birthdate"][:4]) + rng.randint(1, 80)}

    return [
        ("chart (the yardstick)", "/v2/charts/coordinates", lambda i: birth(rng)),
        ("transit over a natal chart", "/v2/transits",
         lambda i: {"at": "2026-03-20T12:00:00Z", "natal": birth(rng)}),
        ("connection", "/v2/connections", lambda i: {"people": [birth(rng), birth(rng)]}),
        ("penta of 5", "/v2/pentas", lambda i: {"people": [birth(rng) for _ in range(5)]}),
        ("cycles", "/v2/cycles", cycles),
        ("sensitivity, +-2 h (default)", "/v2/sensitivity", lambda i: birth(rng)),
        ("sensitivity, +-48 h (windowMinutes 2880)", "/v2/sensitivity",
         lambda i: {**birth(rng), "windowMinutes": 2880}),
        ("stability, +-12 h (default)", "/v2/stability/coordinates", lambda i: birth(rng)),
        ("stability, +-48 h (boundMinutes 2880)", "/v2/stability/coordinates",
         lambda i: {**birth(rng), "boundMinutes": 2880}),
        ("rectification, a day, 3 constraints", "/v2/rectifications", search(1)),
        ("rectification, 7 days, 3 constraints", "/v2/rectifications", search(7)),
        ("calendar, a year of gates, cold", "/v2/calendar", year(gate_years, "gate")),
        ("calendar, a year of gates, warm", "/v2/calendar", year(gate_years, "gate")),
        ("calendar, a year of lines, cold", "/v2/calendar", year(line_years, "line")),
        ("calendar, a year of lines, warm", "/v2/calendar", year(line_years, "line")),
    ]


async def measure(n: int, seed: int) -> list[tuple[str, list[float]]]:
    from bodygraph_server import Settings, create_app
    from bodygraph_server.billing.accounts import Bookkeeper

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        book = Bookkeeper.open(url)
        keys = [book.create_account("scale").api_key for _ in range(16 * n // 80 + 2)]
        app = create_app(Settings(database_url=url, geocoder="offline", warm_up=True,
                                  request_timeout=120), book=book)
        used = 0
        results = []
        async with app.router.lifespan_context(app) as state:
            async def with_state(scope: Any, receive: Any, send: Any) -> None:
                scope["state"] = dict(state or {})
                await app(scope, receive, send)

            transport = httpx.ASGITransport(app=with_state)
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
                async def post(path: str, body: Body) -> float:
                    nonlocal used
                    key = keys[used // 80]
                    used += 1
                    start = time.process_time()
                    response = await c.post(path, json=body,
                                            headers={"Authorization": f"Bearer {key}"})
                    spent = time.process_time() - start
                    if response.status_code != 200:
                        raise SystemExit(f"{path} {body}: {response.status_code} "
                                         f"{response.text[:200]}")
                    return spent

                for _, path, make in cases(random.Random(seed), 1):  # compile, load
                    if path != "/v2/calendar":
                        await post(path, make(0))
                for name, path, make in cases(rng, n):
                    results.append((name, [await post(path, make(i)) for i in range(n)]))
        book.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20, help="requests per row")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    results = asyncio.run(measure(args.requests, args.seed))
    chart = statistics.median(results[0][1])
    print("| request | median CPU ms | p90 CPU ms | in charts |")
    print("|---|---:|---:|---:|")
    for name, spent in results:
        middle = statistics.median(spent)
        p90 = statistics.quantiles(spent, n=10)[-1] if len(spent) > 1 else spent[0]
        print(f"| {name} | {middle * 1000:.1f} | {p90 * 1000:.1f} | {middle / chart:.0f} |")


if __name__ == "__main__":
    main()
