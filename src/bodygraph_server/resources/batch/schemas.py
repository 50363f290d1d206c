"""The batch's request body (declarative, :class:`~bodygraph_server.http.body.Body`) and
result: their limits and JSON Schemas."""

from __future__ import annotations

from typing import Any

from bodygraph_server.http.births import births_field, parse_birth_object
from bodygraph_server.http.body import Body
from bodygraph_server.http.envelope import Envelope
from bodygraph_server.http.errors import ApiError
from bodygraph_server.http.validation import CoordinatesInput
from bodygraph_server.resources.chart_values import REF, closed_object

CHART_BATCH_RESULT = "ChartBatchResult"
BATCH_BIRTHS = (1, 1000)
"""The fewest and most births of one batch request."""
BATCH_BYTES_PER_BIRTH = 256
"""The body of a batch may hold this many bytes per birth it may hold (256,000 bytes for
1,000 births), or the settings' ``max_body_bytes`` if that is more."""

Slot = CoordinatesInput | ApiError
"""A birth of the batch, or the refusal of it (its own result slot's error)."""


def _slot(item: object, where: str) -> Slot:
    try:
        birth = parse_birth_object(item, where, places=False)
    except ApiError as error:
        return error
    assert isinstance(birth, CoordinatesInput)
    return birth


def _slots(births: list[Slot]) -> list[Slot]:
    return births


BATCH_INPUT = Body("ChartBatchInput", (
    births_field(
        name="births", count=BATCH_BIRTHS, description="1 to 1000 births given by coordinates.",
        read_item=_slot, item_codes=(),
        items={"anyOf": [{"$ref": REF + "CoordinatesInput"}, {
            "description": "Any other item is refused in its own result slot (its "
            "errorCode and message); the rest of the batch goes on."}]}),
), _slots)
"""``{"births": [1 to 1000 births by coordinates]}``: the list's shape decides the whole
request, a bad birth only its own slot."""


def schemas() -> dict[str, Any]:
    """``ChartBatchInput``, ``BatchSlotError``, ``ChartBatchResult`` and its envelope."""
    slot_error = closed_object({"errorCode": {"type": "string"},
                                "message": {"type": "string"}})
    envelope = Envelope(CHART_BATCH_RESULT)
    return {
        BATCH_INPUT.name: BATCH_INPUT.schema(),
        "BatchSlotError": slot_error,
        CHART_BATCH_RESULT: closed_object({
            "results": {"type": "array", "minItems": BATCH_BIRTHS[0],
                        "maxItems": BATCH_BIRTHS[1],
                        "items": {"oneOf": [{"$ref": REF + "ChartResult"},
                                            {"$ref": REF + "BatchSlotError"}]},
                        "description": "One slot per birth, in input order."},
        }),
        envelope.name: envelope.schema(),
    }
