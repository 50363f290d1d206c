"""The relation operations ``POST /v2/transits``, ``/v2/connections`` and ``/v2/pentas``:
the command line's ``--json`` (and ``--svg`` as ``svgRenderUrl``) of the same relation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bodygraph.catalog.translations import pgettext
from bodygraph_server.http.envelope import Envelope
from bodygraph_server.http.openapi import sentences
from bodygraph_server.http.operation import Operation
from bodygraph_server.relations_charting import (
    Worded,
    connection_data,
    penta_data,
    transit_of,
    worded,
)
from bodygraph_server.resources.computed import (
    EXTENSION_NOTE,
    Computed,
    Job,
    computed_operation,
    without_services,
)
from bodygraph_server.resources.relations.bodies import (
    CONNECTION_INPUT,
    PENTA_INPUT,
    TRANSIT_INPUT,
    request_schemas,
)
from bodygraph_server.resources.relations.results import result_schemas

if TYPE_CHECKING:
    from datetime import datetime

    from bodygraph.model.chart import Chart
    from bodygraph.relations import Transit
    from bodygraph.render import ConnectionInput, TransitInput

TRANSIT_RESULT = "TransitResult"
CONNECTION_RESULT = "ConnectionResult"
PENTA_RESULT = "PentaResult"


class _OneTransit:
    """The transit of one request at ``at`` over its natal chart (if any), computed once:
    the ``data`` and, with ``"visual": true``, the picture are made from the same one."""

    def __init__(self, at: datetime) -> None:
        self.at = at
        self._made: Transit | None = None

    def of(self, charts: Sequence[Chart]) -> Transit:
        if self._made is None:
            self._made = transit_of(self.at, charts[0] if charts else None)
        return self._made

    def compute(self, charts: Sequence[Chart]) -> Worded:
        """``bodygraph transit --json`` and its labels."""
        return worded(self.of(charts))

    def draw(self, charts: Sequence[Chart]) -> TransitInput:
        """What ``bodygraph transit --svg`` draws: the natal chart with the transit."""
        from bodygraph.render.from_relations import transit_input

        return transit_input(charts[0], self.of(charts))


def _connection_picture(charts: Sequence[Chart]) -> ConnectionInput:
    from bodygraph.render.from_relations import connection_input

    return connection_input(charts[0], charts[1])


def parse_transit(body: dict[str, Any]) -> Job:
    """The job of a :data:`~bodygraph_server.resources.relations.bodies.TRANSIT_INPUT`."""
    transit = TRANSIT_INPUT.parse(body)
    made = _OneTransit(transit.at)
    return Job(() if transit.natal is None else (transit.natal,), made.compute,
               made.draw if transit.visual else None)


def _connection(charts: Sequence[Chart]) -> Worded:
    return connection_data(charts[0], charts[1])


def parse_connection(body: dict[str, Any]) -> Job:
    """The job of a :data:`~bodygraph_server.resources.relations.bodies.CONNECTION_INPUT`."""
    connection = CONNECTION_INPUT.parse(body)
    return Job(tuple(connection.people), _connection,
               _connection_picture if connection.visual else None)


def parse_penta(body: dict[str, Any]) -> Job:
    """The job of a :data:`~bodygraph_server.resources.relations.bodies.PENTA_INPUT`."""
    return Job(tuple(PENTA_INPUT.parse(body).people), penta_data)


OPERATIONS: tuple[Operation, ...] = (
    computed_operation(
        computed=Computed(path="/v2/transits", type_name=TRANSIT_RESULT,
                          message="Transit computed", parse=without_services(parse_transit)),
        summary=pgettext("openapi", "Transit"),
        description=sentences(
            pgettext(
                "openapi", "The 13 bodies at the instant `at`, their gates and channels; with a "
                "natal birth also the channels the transit completes, the centers it newly "
                'defines and the overlay chart (`bodygraph transit --json`). `"visual": true` '
                "(with natal) adds svgRenderUrl, a link to the natal chart with the transit over "
                "it."),
            EXTENSION_NOTE),
        body=TRANSIT_INPUT),
    computed_operation(
        computed=Computed(path="/v2/connections", type_name=CONNECTION_RESULT,
                          message="Connection computed",
                          parse=without_services(parse_connection)),
        summary=pgettext("openapi", "Connection chart"),
        description=sentences(
            pgettext(
                "openapi", "Each channel between two people classified (electromagnetic, "
                "companionship, dominance, compromise) and the composite chart (`bodygraph "
                'connection --json`). `"visual": true` adds svgRenderUrl, a link to both '
                "persons' activations in one bodygraph."),
            EXTENSION_NOTE),
        body=CONNECTION_INPUT),
    computed_operation(
        computed=Computed(path="/v2/pentas", type_name=PENTA_RESULT, message="Penta computed",
                          parse=without_services(parse_penta)),
        summary=pgettext("openapi", "Penta"),
        description=sentences(
            pgettext(
                "openapi", "The penta gates and channels of a group of 3 to 5 people (`bodygraph "
                "penta --json`)."),
            EXTENSION_NOTE),
        body=PENTA_INPUT),
)
"""The relation operations."""
ENVELOPES = (Envelope(TRANSIT_RESULT, picture=True, place=True),
             Envelope(CONNECTION_RESULT, picture=True, places=True),
             Envelope(PENTA_RESULT, places=True))


def schemas() -> dict[str, Any]:
    """The request bodies, results and envelopes of the relation operations."""
    return {**request_schemas(), **result_schemas(), **{e.name: e.schema() for e in ENVELOPES}}
