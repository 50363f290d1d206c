"""The blocking client."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from types import TracebackType
from typing import BinaryIO, TypeVar

import httpx

from bodygraph_client import account_calls, astrology_calls, calls, core, extension_calls, jobs
from bodygraph_client import account_types as acct
from bodygraph_client import astrology_types as astro
from bodygraph_client import extension_types as ext
from bodygraph_client import types as api
from bodygraph_client.calls import Call, DateLike, TimeLike
from bodygraph_client.errors import ServiceUnreachable
from bodygraph_client.extension_calls import Birth, Place
from bodygraph_client.limits import RetryPolicy

T = TypeVar("T")


class Client(core.ClientBase):
    """A client of the bodygraph service (one connection pool; use it as a context
    manager or call :meth:`close`).

    ``api_key`` is the account's key; ``geocode_key`` the caller's geocoding key, sent on
    the location endpoints; ``timeout`` in seconds; ``retry`` the retry rules (the
    contract's by default); ``sleep`` how to wait between attempts; ``transport`` an
    httpx transport to send through (default: the network).
    """

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = core.DEFAULT_BASE_URL,
        geocode_key: str | None = None,
        timeout: float = core.DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], object] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._core = core.Core(api_key, geocode_key, retry)
        self._sleep = sleep
        self._http = httpx.Client(transport=transport, **core.http_options(base_url, timeout))

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def send(self, call: Call[T]) -> T:
        """Send ``call``, retrying as the retry rules allow; its result or its error."""
        response = self.exchange(self._core.request(self._http, call))
        return self._core.result(call, response)

    def exchange(self, request: httpx.Request, *, stream: bool = False) -> httpx.Response:
        """Send ``request``, retrying as the retry rules allow; the last answer (with
        ``stream``, its body not read yet: close it)."""
        retries = 0
        while True:
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TransportError as exc:
                raise core.unreachable(self._http.base_url, exc) from exc
            delay = self._core.retry_delay(response, retries)
            if delay is None:
                return response
            response.close()
            self._sleep(delay)
            retries += 1

    def submit_job(self, births: Iterable[Birth] | bytes, *, kind: jobs.JobKind = "chart",
                   callback_url: str | None = None, content_type: str | None = None,
                   gzipped: bool = False) -> jobs.Job:
        """Submit up to 1,000,000 births (by coordinates) as a job: POST /v2/jobs (1 credit
        per birth, given back for the rows that fail). ``births`` may be an upload as
        bytes, NDJSON or CSV by ``content_type`` (``gzipped``: gzip-compressed). Retries
        keep their Idempotency-Key: one job however often the request is sent."""
        request = jobs.submit_request(self._http, self._core.auth_headers(), births,
                                      content_type=content_type, gzipped=gzipped, kind=kind,
                                      callback_url=callback_url)
        return jobs.read_job(self._core.check(self.exchange(request)))

    def job(self, job_id: str) -> jobs.Job:
        """The job's status: GET /v2/jobs/{job_id}."""
        request = self._http.build_request("GET", jobs.job_path(job_id),
                                           headers=self._core.auth_headers())
        return jobs.read_job(self._core.check(self.exchange(request)))

    def cancel_job(self, job_id: str) -> jobs.Job:
        """Cancel the job (its rows not done are given back): DELETE /v2/jobs/{job_id}."""
        request = self._http.build_request("DELETE", jobs.job_path(job_id),
                                           headers=self._core.auth_headers())
        return jobs.read_job(self._core.check(self.exchange(request)))

    def wait(self, job_id: str, *, every: float = 2.0, timeout: float | None = None
             ) -> jobs.Job:
        """The job once it has ended, asked every ``every`` seconds (TimeoutError after
        ``timeout`` seconds, if given)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            job = self.job(job_id)
            if job.ended:
                return job
            if deadline is not None and time.monotonic() + every > deadline:
                raise TimeoutError(f"job {job_id} is still {job.status}")
            self._sleep(every)

    def download(self, job_id: str, target: BinaryIO, *,
                 result_format: jobs.ResultFormat = "ndjson") -> int:
        """Write the job's result (NDJSON, CSV or Parquet) to ``target`` as it streams in:
        GET /v2/jobs/{job_id}/result; the bytes written."""
        request = self._http.build_request(
            "GET", jobs.job_path(job_id, "/result"),
            headers={**self._core.auth_headers(), "Accept": jobs.ACCEPT[result_format]})
        response = self.exchange(request, stream=True)
        written = 0
        try:
            if not response.is_success:
                response.read()
                self._core.check(response)
            for part in response.iter_bytes():
                target.write(part)
                written += len(part)
        except httpx.TransportError as exc:
            raise core.unreachable(self._http.base_url, exc) from exc
        finally:
            response.close()
        return written

    def chart(self, birthdate: DateLike, birthtime: TimeLike, location: str) -> api.ChartResult:
        """Full chart of a birth at a place: POST /v2/charts (needs ``geocode_key``)."""
        return self.send(calls.chart(birthdate, birthtime, location))

    def chart_at(
        self, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike
    ) -> api.ChartResult:
        """Full chart of a birth at coordinates: POST /v2/charts/coordinates."""
        return self.send(calls.chart_at(lat, lng, birthdate, birthtime))

    def simple_chart(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> api.SimpleChart:
        """Simplified chart: POST /v2/charts/simple (needs ``geocode_key``)."""
        return self.send(calls.simple_chart(birthdate, birthtime, location))

    def visual_chart(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> api.VisualChart:
        """Full chart and its SVG link: POST /v2/visual-charts (needs ``geocode_key``)."""
        return self.send(calls.visual_chart(birthdate, birthtime, location))

    def visual_chart_at(
        self, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike
    ) -> api.VisualChart:
        """Full chart and its SVG link from coordinates: POST /v2/visual-charts/coordinates."""
        return self.send(calls.visual_chart_at(lat, lng, birthdate, birthtime))

    def v1_bodygraph(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> api.V1Bodygraph:
        """Legacy full bodygraph: POST /v1/bodygraphs (date DD-MMM-YY; ``geocode_key``)."""
        return self.send(calls.v1_bodygraph(birthdate, birthtime, location))

    def v1_simple_bodygraph(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> api.V1SimpleBodygraph:
        """Legacy simple bodygraph: POST /v1/bodygraphs/simple (needs ``geocode_key``)."""
        return self.send(calls.v1_simple_bodygraph(birthdate, birthtime, location))

    def transit(self, at: datetime | str, natal: Birth | None = None) -> ext.TransitResult:
        """The sky at the UTC instant ``at`` (an aware datetime or
        ``"YYYY-MM-DDTHH:MM:SSZ"``), over ``natal``'s chart if given: POST /v2/transits."""
        return self.send(extension_calls.transit(at, natal))

    def connection(self, first: Birth, second: Birth) -> ext.ConnectionResult:
        """The connection chart of two people: POST /v2/connections."""
        return self.send(extension_calls.connection(first, second))

    def penta(self, people: Sequence[Birth]) -> ext.PentaResult:
        """The penta of 3 to 5 people: POST /v2/pentas."""
        return self.send(extension_calls.penta(people))

    def sensitivity(
        self, birth: Birth, window_minutes: int | None = None
    ) -> ext.SensitivityResult:
        """The line changes within ``window_minutes`` (default 120) either side of the
        birth: POST /v2/sensitivity."""
        return self.send(extension_calls.sensitivity(birth, window_minutes))

    def cycles(self, birth: Birth, year: int) -> ext.CyclesResult:
        """The solar return of ``year``, the Saturn returns and Uranus oppositions:
        POST /v2/cycles."""
        return self.send(extension_calls.cycles(birth, year))

    def calendar(
        self, start: DateLike, end: DateLike, bodies: Sequence[ext.Body] | None = None,
        level: ext.Level | None = None,
    ) -> ext.CalendarResult:
        """The gate (or line) ingresses from ``start`` to ``end``, both included (UTC
        days): POST /v2/calendar."""
        return self.send(extension_calls.calendar(start, end, bodies, level))

    def charts_batch(self, births: Sequence[Birth]) -> ext.ChartBatchResult:
        """The full charts of 1 to 1000 births by coordinates, one slot each (a chart or
        an error): POST /v2/charts/batch (1 credit per chart returned)."""
        return self.send(extension_calls.charts_batch(births))

    def hologenetic_profile(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> astro.HologeneticProfileResult:
        """The hologenetic profile of a birth at a place: POST /v2/hologenetic-profiles
        (needs ``geocode_key``)."""
        return self.send(astrology_calls.hologenetic_profile(birthdate, birthtime, location))

    def hologenetic_profile_at(
        self, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike
    ) -> astro.HologeneticProfileResult:
        """The hologenetic profile of a birth at coordinates:
        POST /v2/hologenetic-profiles/coordinates."""
        return self.send(astrology_calls.hologenetic_profile_at(lat, lng, birthdate, birthtime))

    def astro_at(
        self, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike,
        houses: astro.HouseSystem | None = None,
    ) -> astro.AstroResult:
        """Zodiac positions of the 26 activations, the Ascendant, the Midheaven and the
        house cusps (``houses``: placidus by default, or whole-sign):
        POST /v2/astro/coordinates."""
        return self.send(astrology_calls.astro_at(lat, lng, birthdate, birthtime, houses))

    def wheel_chart_at(
        self, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike,
        transit_at: datetime | str | None = None, theme: astro.Theme | None = None,
    ) -> astro.WheelChart:
        """The link to the mandala wheel of a birth (with the sky at ``transit_at`` as an
        outer ring, in a shipped ``theme``): POST /v2/wheel-charts/coordinates."""
        return self.send(astrology_calls.wheel_chart_at(lat, lng, birthdate, birthtime,
                                                        transit_at, theme))

    def stability(
        self, birth: Birth, bound_minutes: int | None = None
    ) -> ext.StabilityResult:
        """How far each property and activation of the birth's chart holds within
        ``bound_minutes`` (default 720) either side: POST /v2/stability (a birth by place
        name; needs ``geocode_key``) or /v2/stability/coordinates."""
        return self.send(extension_calls.stability(birth, bound_minutes))

    def rectify(
        self, where: Place, day: DateLike, constraints: ext.Constraints, *,
        to_day: DateLike | None = None, from_time: TimeLike | None = None,
        to_time: TimeLike | None = None,
    ) -> ext.RectificationResult:
        """Every window of birth times on ``day`` (to ``to_day``, at most 7 days; from
        ``from_time`` to ``to_time``, local at ``where``) whose chart has all of
        ``constraints``: POST /v2/rectifications."""
        return self.send(extension_calls.rectify(where, day, constraints, to_day=to_day,
                                                 from_time=from_time, to_time=to_time))

    def account(self) -> acct.AccountResult:
        """The key's account: plan, status, the period's credits, overage and the rate
        limit: GET /v2/account (free, every tier)."""
        return self.send(account_calls.account())

    def usage(self, days: int | None = None) -> acct.AccountUsageResult:
        """Successful calls and credits charged by UTC day and endpoint over the last
        ``days`` days (1 to 90; default 30): GET /v2/account/usage."""
        return self.send(account_calls.usage(days))

    def rotate_key(self) -> acct.ApiKeyResult:
        """A new API key (shown once): POST /v2/account/keys/rotate. The key this client
        was made with stops working at once; the client sends the new one from now on.
        An answer that is lost is asked again with the same Idempotency-Key and old key,
        which the service answers with the same new key (docs/client.md)."""
        call = account_calls.rotate_key()
        request = self._core.request(self._http, call)
        retries = 0
        while True:
            try:
                response = self.exchange(request)
                break
            except ServiceUnreachable:
                delay = self._core.lost_answer_delay(retries)
                if delay is None:
                    raise
                self._sleep(delay)
                retries += 1
        rotated = self._core.result(call, response)
        self._core.api_key = rotated["apiKey"]
        return rotated

    def webhook_secret(self) -> acct.WebhookSecretResult:
        """The account's webhook signing secret (``whsec_...``): GET
        /v2/account/webhook-secret."""
        return self.send(account_calls.webhook_secret())

    def rotate_webhook_secret(self) -> acct.WebhookSecretResult:
        """A new webhook signing secret: POST /v2/account/webhook-secret/rotate."""
        return self.send(account_calls.rotate_webhook_secret())
