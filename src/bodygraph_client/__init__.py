"""bodygraph_client: a typed Python client of the bodygraph HTTP service.

>>> from bodygraph_client import Client
>>> with Client("API_KEY", base_url="http://127.0.0.1:8000") as client:  # doctest: +SKIP
...     chart = client.chart_at(52.52, 13.405, "1990-07-15", "14:30")
...     chart["type"], client.rate_limit.remaining
('Projector', 99)

Depends on httpx (and standardwebhooks for :func:`verify_webhook`; the ``client`` extra).
:class:`Client` blocks, :class:`AsyncClient` awaits; both retry as the contract says (429
after Retry-After, 500/503 after 1, 2, 4 s), send an Idempotency-Key with every charged
call and raise one :class:`BodygraphApiError` subclass per errorCode family. The
extension endpoints (transits, connections, pentas, sensitivity, cycles, calendar,
batches, stability) take :class:`Birth` values, ``rectify`` a :class:`Place`; the
astrology endpoints (hologenetic profile, zodiac positions and angles, the mandala
wheel's link) take coordinates like :meth:`Client.chart_at`; ``account``, ``usage``,
``rotate_key`` and the webhook secret's calls are free; ``submit_job``, ``job``,
``wait``, ``download`` and ``cancel_job`` run jobs of up to 1,000,000 births
(:class:`Job`). :meth:`Call.in_language` asks a v2 call for its words in a language.
"""

from __future__ import annotations

from bodygraph_client.account_types import (
    AccountCredits,
    AccountOverage,
    AccountRateLimit,
    AccountResult,
    AccountStatus,
    AccountUsageResult,
    ApiKeyResult,
    EndpointUsage,
    UsageDay,
    WebhookSecretResult,
)
from bodygraph_client.aio import AsyncClient
from bodygraph_client.astrology_types import (
    ActivationSequence,
    Angles,
    AstroResult,
    HologeneticProfileResult,
    Houses,
    HouseSystem,
    PearlSequence,
    Sign,
    Theme,
    VenusSequence,
    WheelChart,
    WheelChartResult,
    WheelLongitudes,
    ZodiacActivations,
    ZodiacPosition,
    ZodiacSide,
)
from bodygraph_client.calls import Call, DateLike, Endpoint, Labelled, TimeLike
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
from bodygraph_client.extension_calls import Birth, Place
from bodygraph_client.extension_types import (
    BatchSlotError,
    Body,
    CalendarResult,
    ChartBatchResult,
    Composite,
    ConnectionResult,
    Constraints,
    CyclesResult,
    HeldChannel,
    Ingress,
    Level,
    LineChange,
    PentaResult,
    RectificationResult,
    Segment,
    SensitivityResult,
    StabilityResult,
    Stretch,
    TransitNatal,
    TransitResult,
    Window,
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
from bodygraph_client.webhooks import WebhookVerificationError, verify_webhook

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_BASE_URL",
    "AccessDenied",
    "AccountCredits",
    "AccountOverage",
    "AccountRateLimit",
    "AccountResult",
    "AccountStatus",
    "AccountUsageResult",
    "ActivationSequence",
    "ActivationSide",
    "Activations",
    "Angles",
    "ApiKeyResult",
    "AstroResult",
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
    "Constraints",
    "CreditsExhausted",
    "CyclesResult",
    "DateLike",
    "Endpoint",
    "EndpointNotFound",
    "EndpointUsage",
    "GeocodeError",
    "HeldChannel",
    "HologeneticProfileResult",
    "HouseSystem",
    "Houses",
    "Ingress",
    "InvalidInput",
    "Job",
    "Labelled",
    "Level",
    "LineChange",
    "PearlSequence",
    "PentaResult",
    "Place",
    "RateLimit",
    "RateLimited",
    "RectificationResult",
    "RetryPolicy",
    "Segment",
    "SensitivityResult",
    "ServerError",
    "ServiceUnreachable",
    "Sign",
    "SimpleChart",
    "StabilityResult",
    "Stretch",
    "Theme",
    "TimeLike",
    "TransitNatal",
    "TransitResult",
    "UsageDay",
    "V1ActivationSide",
    "V1Activations",
    "V1Bodygraph",
    "V1SimpleBodygraph",
    "VenusSequence",
    "VisualChart",
    "WebhookSecretResult",
    "WebhookVerificationError",
    "WheelChart",
    "WheelChartResult",
    "WheelLongitudes",
    "Window",
    "ZodiacActivations",
    "ZodiacPosition",
    "ZodiacSide",
    "__version__",
    "verify_webhook",
]
