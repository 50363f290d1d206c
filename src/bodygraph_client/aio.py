"""The asyncio (and trio) client: the same methods as :class:`~bodygraph_client.Client`,
awaited."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import datetime
from types import TracebackType
from typing import BinaryIO, TypeVar

import anyio
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


class AsyncClient(core.ClientBase):
    """The async client of the bodygraph service; arguments as for
    :class:`~bodygraph_client.Client` (``sleep`` is awaited, ``transport`` is an async
    transport). Use it as ``async with`` or await :meth:`aclose`."""

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = core.DEFAULT_BASE_URL,
        geocode_key: str | None = None,
        timeout: float = core.DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[object]] = anyio.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._core = core.Core(api_key, geocode_key, retry)
        self._sleep = sleep
        self._http = httpx.AsyncClient(transport=transport, **core.http_options(base_url, timeout))

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def send(self, call: Call[T]) -> T:
        """Send ``call``, retrying as the retry rules allow; its result or its error."""
        response = await self.exchange(self._core.request(self._http, call))
        return self._core.result(call, response)

    async def exchange(self, request: httpx.Request, *, stream: bool = False
                       ) -> httpx.Response:
        """See :meth:`bodygraph_client.Client.exchange`."""
        retries = 0
        while True:
            try:
                response = await self._http.send(request, stream=stream)
            except httpx.TransportError as exc:
                raise core.unreachable(self._http.base_url, exc) from exc
            delay = self._core.retry_delay(response, retries)
            if delay is None:
                return response
            await response.aclose()
            await self._sleep(delay)
            retries += 1

    async def submit_job(self, births: Iterable[Birth] | bytes, *,
                         kind: jobs.JobKind = "chart", callback_url: str | None = None,
                         content_type: str | None = None, gzipped: bool = False) -> jobs.Job:
        """See :meth:`bodygraph_client.Client.submit_job`."""
        request = jobs.submit_request(self._http, self._core.auth_headers(), births,
                                      content_type=content_type, gzipped=gzipped, kind=kind,
                                      callback_url=callback_url)
        return jobs.read_job(self._core.check(await self.exchange(request)))

    async def job(self, job_id: str) -> jobs.Job:
        """See :meth:`bodygraph_client.Client.job`."""
        request = self._http.build_request("GET", jobs.job_path(job_id),
                                           headers=self._core.auth_headers())
        return jobs.read_job(self._core.check(await self.exchange(request)))

    async def cancel_job(self, job_id: str) -> jobs.Job:
        """See :meth:`bodygraph_client.Client.cancel_job`."""
        request = self._http.build_request("DELETE", jobs.job_path(job_id),
                                           headers=self._core.auth_headers())
        return jobs.read_job(self._core.check(await self.exchange(request)))

    async def wait(self, job_id: str, *, every: float = 2.0,
                   timeout: float | None = None) -> jobs.Job:
        """See :meth:`bodygraph_client.Client.wait`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            job = await self.job(job_id)
            if job.ended:
                return job
            if deadline is not None and time.monotonic() + every > deadline:
                raise TimeoutError(f"job {job_id} is still {job.status}")
            await self._sleep(every)

    async def download(self, job_id: str, target: BinaryIO, *,
                       result_format: jobs.ResultFormat = "ndjson") -> int:
        """See :meth:`bodygraph_client.Client.download` (``target`` is written to
        directly: a file or a buffer)."""
        request = self._http.build_request(
            "GET", jobs.job_path(job_id, "/result"),
            headers={**self._core.auth_headers(), "Accept": jobs.ACCEPT[result_format]})
        response = await self.exchange(request, stream=True)
        written = 0
        try:
            if not response.is_success:
                await response.aread()
                self._core.check(response)
            async for part in response.aiter_bytes():
                target.write(part)
                written += len(part)
        except httpx.TransportError as exc:
            raise core.unreachable(self._http.base_url, exc) from exc
        finally:
            await response.aclose()
        return written

    async def chart(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> api.ChartResult:
        """See :meth:`bodygraph_client.Client.chart`."""
        return await self.send(calls.chart(birthdate, birthtime, location))

    async def chart_at(
        self, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike
    ) -> api.ChartResult:
        """See :meth:`bodygraph_client.Client.chart_at`."""
        return await self.send(calls.chart_at(lat, lng, birthdate, birthtime))

    async def simple_chart(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> api.SimpleChart:
        """See :meth:`bodygraph_client.Client.simple_chart`."""
        return await self.send(calls.simple_chart(birthdate, birthtime, location))

    async def visual_chart(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> api.VisualChart:
        """See :meth:`bodygraph_client.Client.visual_chart`."""
        return await self.send(calls.visual_chart(birthdate, birthtime, location))

    async def visual_chart_at(
        self, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike
    ) -> api.VisualChart:
        """See :meth:`bodygraph_client.Client.visual_chart_at`."""
        return await self.send(calls.visual_chart_at(lat, lng, birthdate, birthtime))

    async def v1_bodygraph(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> api.V1Bodygraph:
        """See :meth:`bodygraph_client.Client.v1_bodygraph`."""
        return await self.send(calls.v1_bodygraph(birthdate, birthtime, location))

    async def v1_simple_bodygraph(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> api.V1SimpleBodygraph:
        """See :meth:`bodygraph_client.Client.v1_simple_bodygraph`."""
        return await self.send(calls.v1_simple_bodygraph(birthdate, birthtime, location))

    async def transit(self, at: datetime | str, natal: Birth | None = None) -> ext.TransitResult:
        """See :meth:`bodygraph_client.Client.transit`."""
        return await self.send(extension_calls.transit(at, natal))

    async def connection(self, first: Birth, second: Birth) -> ext.ConnectionResult:
        """See :meth:`bodygraph_client.Client.connection`."""
        return await self.send(extension_calls.connection(first, second))

    async def penta(self, people: Sequence[Birth]) -> ext.PentaResult:
        """See :meth:`bodygraph_client.Client.penta`."""
        return await self.send(extension_calls.penta(people))

    async def sensitivity(
        self, birth: Birth, window_minutes: int | None = None
    ) -> ext.SensitivityResult:
        """See :meth:`bodygraph_client.Client.sensitivity`."""
        return await self.send(extension_calls.sensitivity(birth, window_minutes))

    async def cycles(self, birth: Birth, year: int) -> ext.CyclesResult:
        """See :meth:`bodygraph_client.Client.cycles`."""
        return await self.send(extension_calls.cycles(birth, year))

    async def calendar(
        self, start: DateLike, end: DateLike, bodies: Sequence[ext.Body] | None = None,
        level: ext.Level | None = None,
    ) -> ext.CalendarResult:
        """See :meth:`bodygraph_client.Client.calendar`."""
        return await self.send(extension_calls.calendar(start, end, bodies, level))

    async def charts_batch(self, births: Sequence[Birth]) -> ext.ChartBatchResult:
        """See :meth:`bodygraph_client.Client.charts_batch`."""
        return await self.send(extension_calls.charts_batch(births))

    async def hologenetic_profile(
        self, birthdate: DateLike, birthtime: TimeLike, location: str
    ) -> astro.HologeneticProfileResult:
        """See :meth:`bodygraph_client.Client.hologenetic_profile`."""
        return await self.send(astrology_calls.hologenetic_profile(birthdate, birthtime,
                                                                   location))

    async def hologenetic_profile_at(
        self, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike
    ) -> astro.HologeneticProfileResult:
        """See :meth:`bodygraph_client.Client.hologenetic_profile_at`."""
        return await self.send(astrology_calls.hologenetic_profile_at(lat, lng, birthdate,
                                                                      birthtime))

    async def astro_at(
        self, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike,
        houses: astro.HouseSystem | None = None,
    ) -> astro.AstroResult:
        """See :meth:`bodygraph_client.Client.astro_at`."""
        return await self.send(astrology_calls.astro_at(lat, lng, birthdate, birthtime,
                                                        houses))

    async def wheel_chart_at(
        self, lat: float, lng: float, birthdate: DateLike, birthtime: TimeLike,
        transit_at: datetime | str | None = None, theme: astro.Theme | None = None,
    ) -> astro.WheelChart:
        """See :meth:`bodygraph_client.Client.wheel_chart_at`."""
        return await self.send(astrology_calls.wheel_chart_at(lat, lng, birthdate, birthtime,
                                                              transit_at, theme))

    async def stability(
        self, birth: Birth, bound_minutes: int | None = None
    ) -> ext.StabilityResult:
        """See :meth:`bodygraph_client.Client.stability`."""
        return await self.send(extension_calls.stability(birth, bound_minutes))

    async def rectify(
        self, where: Place, day: DateLike, constraints: ext.Constraints, *,
        to_day: DateLike | None = None, from_time: TimeLike | None = None,
        to_time: TimeLike | None = None,
    ) -> ext.RectificationResult:
        """See :meth:`bodygraph_client.Client.rectify`."""
        return await self.send(extension_calls.rectify(where, day, constraints, to_day=to_day,
                                                       from_time=from_time, to_time=to_time))

    async def account(self) -> acct.AccountResult:
        """See :meth:`bodygraph_client.Client.account`."""
        return await self.send(account_calls.account())

    async def usage(self, days: int | None = None) -> acct.AccountUsageResult:
        """See :meth:`bodygraph_client.Client.usage`."""
        return await self.send(account_calls.usage(days))

    async def rotate_key(self) -> acct.ApiKeyResult:
        """See :meth:`bodygraph_client.Client.rotate_key` (the client sends the new key from
        now on)."""
        call = account_calls.rotate_key()
        request = self._core.request(self._http, call)
        retries = 0
        while True:
            try:
                response = await self.exchange(request)
                break
            except ServiceUnreachable:
                delay = self._core.lost_answer_delay(retries)
                if delay is None:
                    raise
                await self._sleep(delay)
                retries += 1
        rotated = self._core.result(call, response)
        self._core.api_key = rotated["apiKey"]
        return rotated

    async def webhook_secret(self) -> acct.WebhookSecretResult:
        """See :meth:`bodygraph_client.Client.webhook_secret`."""
        return await self.send(account_calls.webhook_secret())

    async def rotate_webhook_secret(self) -> acct.WebhookSecretResult:
        """See :meth:`bodygraph_client.Client.rotate_webhook_secret`."""
        return await self.send(account_calls.rotate_webhook_secret())
