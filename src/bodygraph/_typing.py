"""The array types the library shares, defined once (numpy arrays by element type)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
SmallIntArray = npt.NDArray[np.int16]
CodeArray = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]
StatusArray = npt.NDArray[np.uint8]
ObjectArray = npt.NDArray[np.object_]
#: Instants as numpy datetime64 with microsecond resolution (UTC, or UT1 before 1972).
Micros = npt.NDArray[np.datetime64]
