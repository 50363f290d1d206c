"""The chart rules for N charts at once: the vectorized twin of
:mod:`bodygraph.rules.properties`.

A chart's defined channels are a bitmask (bit i: channel i of ``tables().channels``);
type, authority, definition, centers and circuitries follow from the mask. Small batches
take a cache of the scalar rules themselves; large ones take one pass of array
operations that the tests hold against the scalar rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np
import numpy.typing as npt

from bodygraph._typing import BoolArray, CodeArray, IntArray, SmallIntArray
from bodygraph.catalog.tables import CENTER_NAMES, CIRCUITRY_ORDER, Channel, tables
from bodygraph.model.chart import AUTHORITIES, DEFINITIONS, TYPES, Authority, ChartType
from bodygraph.rules.graph import center_graph
from bodygraph.rules.properties import MOTORS, authority, chart_type, definition


@cache
def _channels() -> tuple[Channel, ...]:
    """The 36 channels in table order: bit i of a channel mask is channel i."""
    return tables().channels


@cache
def _channel_gates() -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    low = np.array([1 << (c.gates[0] - 1) for c in _channels()], dtype=np.uint64)
    high = np.array([1 << (c.gates[1] - 1) for c in _channels()], dtype=np.uint64)
    return low, high


def channel_masks(gates: IntArray) -> IntArray:
    """Bitmask of the defined channels of each chart from its gates, shape (26, N)."""
    bits = np.left_shift(np.uint64(1), (gates - 1).astype(np.uint64))
    activated = np.bitwise_or.reduce(bits, axis=0)
    low, high = _channel_gates()
    defined = ((activated[None, :] & low[:, None]) != 0) & ((activated[None, :] & high[:, None])
                                                              != 0)
    weights = np.left_shift(np.int64(1), np.arange(len(low), dtype=np.int64))
    out: IntArray = (defined.astype(np.int64) * weights[:, None]).sum(axis=0)
    return out


@dataclass(frozen=True, slots=True)
class ChannelSetProperties:
    """What follows from one set of defined channels (arrays of N charts)."""

    type: CodeArray  # index into TYPES
    authority: CodeArray  # index into AUTHORITIES
    definition: CodeArray  # index into DEFINITIONS
    centers: SmallIntArray  # bit i: CENTER_NAMES[i] defined
    circuitries: CodeArray  # bit i: CIRCUITRY_ORDER[i] present


@cache
def _channel_centers() -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], IntArray]:
    """Per channel: the index in CENTER_NAMES of its two centers, and its circuitry bit."""
    a = np.array([CENTER_NAMES.index(c.centers[0]) for c in _channels()], dtype=np.intp)
    b = np.array([CENTER_NAMES.index(c.centers[1]) for c in _channels()], dtype=np.intp)
    circuit = np.array([1 << CIRCUITRY_ORDER.index(c.circuitry) for c in _channels()],
                       dtype=np.int64)
    return a, b, circuit


#: Up to this many charts, properties come from a per-channel-set cache of the scalar
#: rules: the vectorized path costs a fixed ~1,000 small numpy calls whatever N is.
SMALL_BATCH = 64


@lru_cache(maxsize=1 << 16)
def _mask_properties(mask: int) -> tuple[int, int, int, int, int]:
    """The properties of one channel set by the rules of :mod:`bodygraph.rules.properties`."""
    chosen = tuple(c for i, c in enumerate(_channels()) if mask >> i & 1)
    graph = center_graph(chosen)
    kind = chart_type(graph)
    centers = sum(1 << CENTER_NAMES.index(name) for name in graph.defined)
    circuits = 0
    for channel in chosen:
        circuits |= 1 << CIRCUITRY_ORDER.index(channel.circuitry)
    return (TYPES.index(kind), AUTHORITIES.index(authority(graph, kind)),
            DEFINITIONS.index(definition(graph)), centers, circuits)


def channel_set_properties(masks: IntArray) -> ChannelSetProperties:
    """Type, authority, definition, centers and circuitries of N channel masks at once:
    from a cache of the scalar rules for small batches, vectorized for large ones."""
    if masks.shape[0] > SMALL_BATCH:
        return vectorized_channel_set_properties(masks)
    rows = np.array([_mask_properties(int(m)) for m in masks], dtype=np.int64).reshape(-1, 5)
    return ChannelSetProperties(
        type=rows[:, 0].astype(np.int8),
        authority=rows[:, 1].astype(np.int8),
        definition=rows[:, 2].astype(np.int8),
        centers=rows[:, 3].astype(np.int16),
        circuitries=rows[:, 4].astype(np.int8),
    )


def vectorized_channel_set_properties(masks: IntArray) -> ChannelSetProperties:
    """:func:`channel_set_properties` for N masks in one pass of array operations.

    The rules are those of :mod:`bodygraph.rules.properties` (which the tests hold this
    against): connectivity is found by propagating the smallest center index along the
    defined channels until nothing changes.
    """
    a, b, circuit = _channel_centers()
    n = masks.shape[0]
    on = (masks[None, :] >> np.arange(len(a), dtype=np.int64)[:, None]) & 1 == 1  # (36, N)
    defined = np.zeros((len(CENTER_NAMES), n), dtype=bool)
    for i in range(len(a)):
        defined[a[i]] |= on[i]
        defined[b[i]] |= on[i]
    label = np.repeat(np.arange(len(CENTER_NAMES), dtype=np.int8)[:, None], n, axis=1)
    for _ in range(len(CENTER_NAMES)):
        changed = False
        for i in range(len(a)):
            low = np.minimum(label[a[i]], label[b[i]])
            for end in (a[i], b[i]):
                update = on[i] & (low < label[end])
                if update.any():
                    label[end] = np.where(update, low, label[end])
                    changed = True
        if not changed:
            break
    c = {name: i for i, name in enumerate(CENTER_NAMES)}

    def connected(x: str, y: str) -> BoolArray:
        out: BoolArray = defined[c[x]] & defined[c[y]] & (
            label[c[x]] == label[c[y]])
        return out

    def has(name: str) -> BoolArray:
        out: BoolArray = defined[c[name]]
        return out

    motor_to_throat = np.zeros(n, dtype=bool)
    for motor in MOTORS:
        motor_to_throat |= connected(motor, "Throat")
    none = ~defined.any(axis=0)
    kind = np.select(
        [none, has("Sacral") & motor_to_throat, has("Sacral"), motor_to_throat],
        [TYPES.index(t) for t in (ChartType.REFLECTOR, ChartType.MANIFESTING_GENERATOR,
                                  ChartType.GENERATOR, ChartType.MANIFESTOR)],
        TYPES.index(ChartType.PROJECTOR),
    )
    inner = np.select(
        [has("Solar Plexus"), has("Sacral"), has("Spleen"),
         has("Ego") & connected("Ego", "Throat"), has("Ego"), connected("G", "Throat"), none],
        [AUTHORITIES.index(x) for x in (
            Authority.EMOTIONAL, Authority.SACRAL, Authority.SPLENIC, Authority.EGO_MANIFESTED,
            Authority.EGO_PROJECTED, Authority.SELF_PROJECTED, Authority.LUNAR)],
        AUTHORITIES.index(Authority.SOUNDING_BOARD),
    )
    roots = (defined & (label == np.arange(len(CENTER_NAMES))[:, None])).sum(axis=0)
    weights = np.left_shift(1, np.arange(len(CENTER_NAMES)))[:, None]
    return ChannelSetProperties(
        type=kind.astype(np.int8),
        authority=inner.astype(np.int8),
        definition=roots.astype(np.int8),  # the index of a definition: its groups
        centers=(defined * weights).sum(axis=0).astype(np.int16),
        circuitries=np.bitwise_or.reduce(np.where(on, circuit[:, None], 0), axis=0).astype(
            np.int8),
    )
