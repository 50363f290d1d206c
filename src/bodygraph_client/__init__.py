"""bodygraph_client: a typed Python client of the bodygraph HTTP service.

>>> from bodygraph_client import Client
>>> with Client("API_KEY", base_url="http://127.0.0.1:8000") as client:  # doctest: +SKIP
...     chart = client.chart_at(52.52, 13.405, "1990-07-15", "14:30")
...     chart["type"], client.rate_limit.remaining
('Projector', 99)

Depends on httpx only (the ``client`` extra). :class:`Client` blocks,
:class:`AsyncClient` awaits; both retry as the contract says (429 after Retry-After,
500/503 after 1, 2, 4 s), send an Idempotency-Key with every charged call and raise one
:class:`BodygraphApiError` subclass per errorCode family. The extension endpoints
(transits, connections, pentas, sensitivity, cycles, calendar, batches) take
:class:`Birth` values; ``submit_job``, ``job``, ``wait``, ``download`` and
``cancel_job`` run jobs of up to 1,000,000 births (:class:`Job`).
"""

from __future__ import annotations

from bodygraph_client.aio import AsyncClient
from bodygraph_client.calls import Call, DateLike, Endpoint, TimeLike
from bodygraph_client.client import Client
from bodygraph_client.core import DEFAULT_BASE_URL
from bodygraph_client.errors import (
    AccessDenied,
    AuthError,
    BodygraphApiError,
    BodygraphClientError,
    CreditsExhausted,
    EndpointNotFound,
    GeocodeError,
    InvalidInput,
    RateLimited,
    ServerError,
    ServiceUnreachable,
)
from bodygraph_client.extension_calls import Birth
from bodygraph_client.extension_types import (
    BatchSlotError,
    Body,
    CalendarResult,
    ChartBatchResult,
    Composite,
    ConnectionResult,
    CyclesResult,
    HeldChannel,
    Ingress,
    Level,
    LineChange,
    PentaResult,
    Segment,
    SensitivityResult,
    TransitNatal,
    TransitResult,
)
from bodygraph_client.jobs import Job
from bodygraph_client.limits import RateLimit, RetryPolicy
from bodygraph_client.types import (
    Activations,
    ActivationSide,
    ChartResult,
    SimpleChart,
    V1Activations,
    V1ActivationSide,
    V1Bodygraph,
    V1SimpleBodygraph,
    VisualChart,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_BASE_URL",
    "AccessDenied",
    "ActivationSide",
    "Activations",
    "AsyncClient",
    "AuthError",
    "BatchSlotError",
    "Birth",
    "Body",
    "BodygraphApiError",
    "BodygraphClientError",
    "CalendarResult",
    "Call",
    "ChartBatchResult",
    "ChartResult",
    "Client",
    "Composite",
    "ConnectionResult",
    "CreditsExhausted",
    "CyclesResult",
    "DateLike",
    "Endpoint",
    "EndpointNotFound",
    "GeocodeError",
    "HeldChannel",
    "Ingress",
    "InvalidInput",
    "Job",
    "Level",
    "LineChange",
    "PentaResult",
    "RateLimit",
    "RateLimited",
    "RetryPolicy",
    "Segment",
    "SensitivityResult",
    "ServerError",
    "ServiceUnreachable",
    "SimpleChart",
    "TimeLike",
    "TransitNatal",
    "TransitResult",
    "V1ActivationSide",
    "V1Activations",
    "V1Bodygraph",
    "V1SimpleBodygraph",
    "VisualChart",
    "__version__",
]
