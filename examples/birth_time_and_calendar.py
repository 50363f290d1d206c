"""An uncertain birth time, the cycles of a birth, and the Rave New Year.

Run: python examples/birth_time_and_calendar.py
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import groupby

import bodygraph


def main() -> None:
    birth = datetime(1980, 1, 3, 8, 30, tzinfo=UTC)

    # Born "around 8:30": which charts do the two hours either side allow?
    result = bodygraph.sensitivity(birth, timedelta(hours=2))
    print(f"Born between {result.start:%H:%M} and {result.end:%H:%M} UTC:")
    same = groupby(result.segments, key=lambda s: (s.profile, s.type, s.authority,
                                                   s.incarnation_cross))
    for (profile, kind, authority, cross), run in same:
        spans = list(run)
        print(f"  {spans[0].start:%H:%M:%S} to {spans[-1].end:%H:%M:%S}: {profile} "
              f"{kind.value}, {authority.value}, {cross}")
    print(f"  ({len(result.changes)} line changes in the window)")

    print(f"Solar return 2026:  {bodygraph.solar_return(birth, 2026):%Y-%m-%d %H:%M:%S} UTC")
    for instant in bodygraph.saturn_returns(birth):
        print(f"Saturn return:      {instant:%Y-%m-%d %H:%M:%S} UTC")
    for instant in bodygraph.uranus_oppositions(birth):
        print(f"Uranus opposition:  {instant:%Y-%m-%d %H:%M:%S} UTC")

    for year in (2025, 2026, 2027):
        start = datetime(year, 1, 1, tzinfo=UTC)
        found = bodygraph.calendar(start, start + timedelta(days=60), ["sun"])
        new_year = next(i for i in found if i.gate == 41)
        print(f"Rave New Year {year}: {new_year.at:%Y-%m-%d %H:%M:%S} UTC")


if __name__ == "__main__":
    main()
