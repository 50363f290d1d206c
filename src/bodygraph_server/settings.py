"""One typed settings object, from constructor arguments and the environment.

Environment variables (all optional):

``BODYGRAPH_DATABASE_URL``
    ``sqlite:///path/to.db`` or ``postgresql://user@host/db`` (default
    :data:`bodygraph_server.store.DEFAULT_DATABASE_URL`, ``sqlite:///bodygraph.sqlite3`` in
    the working directory).
``BODYGRAPH_SQLITE_BUSY_TIMEOUT``
    Seconds a SQLite write waits for the lock another program holds before the request
    is answered 503 SERVICE_UNAVAILABLE (default 0.25; the service runs SQLite calls on
    its event loop, so a worker serves nothing else while it waits).
``BODYGRAPH_RATE_LIMIT_URL``
    Where the rate-limit windows live: empty or ``store`` (the database) or
    ``redis://host:port/db``.
``BODYGRAPH_GEOCODER``
    ``google`` (the caller's HD-Geocode-Key is a Google key) or ``offline`` (the
    built-in gazetteer; the key is still required by the contract but not sent anywhere).
``BODYGRAPH_GEOCODER_URL``
    ``scheme://host:port`` of a server speaking the Google Geocoding API in place of
    Google's (empty: Google itself).
``BODYGRAPH_PUBLIC_URL``
    The service's public base address (``https://api.example.com``), used to make
    absolute image links when ``BODYGRAPH_RENDER_URL`` is not set (empty: the scheme and
    host of each request).
``BODYGRAPH_RENDER_URL``
    Base address of the rendered images (``svgRenderUrl`` is
    ``{render_url}/<template|default>.svg?t=<token>``). Empty (default): this service
    under ``/render`` (``{public_url}/render``). The service mounts its image route at
    the path of this URL (``/render`` when it has none).
``BODYGRAPH_RENDER_KEYS``
    Render signing keys ``kid:secret,kid:secret`` (oldest first, the last signs; see
    ``docs/render.md``). Empty (default): keys generated once and kept in the database.
``BODYGRAPH_MAX_BODY_BYTES``
    Largest request body accepted (default 16384).
``BODYGRAPH_REQUEST_TIMEOUT``
    Seconds a chart request may take, geocoding included (default 15).
``BODYGRAPH_WORKERS``
    uvicorn worker processes (default 1).
``BODYGRAPH_WARM_UP``
    ``1`` (default) computes one chart at start-up so the first request does not pay for
    loading the ephemeris and the time-zone data; ``0`` skips it.
``BODYGRAPH_ACCESS_LOG``
    ``1`` (default) logs a line per request (uvicorn's access log: client, method, path,
    status; never a body) at level info; ``0`` turns it off (for example when a proxy
    in front keeps its own).
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from bodygraph_server.store import DEFAULT_BUSY_TIMEOUT, DEFAULT_DATABASE_URL

GeocoderName = Literal["google", "offline"]

ENV_PREFIX = "BODYGRAPH_"
DEFAULT_RENDER_PATH = "/render"
_RESERVED_PATHS = ("/v1", "/v2", "/openapi.json", "/docs", "/playground", "/health")


#: A render signing key's id: 1-16 of ``A-Z a-z 0-9 _ -``.
KEY_ID = re.compile(r"[A-Za-z0-9_-]{1,16}")
#: The shortest render signing secret accepted, in bytes.
MIN_SECRET_BYTES = 32


class SettingsError(ValueError):
    """A setting has a value the service cannot use."""


class KeyConfigError(SettingsError):
    """The render signing keys are missing or unusable."""


def check_render_key(kid: str, secret: bytes) -> None:
    """:class:`KeyConfigError` unless ``kid`` and ``secret`` make a usable signing key."""
    if not KEY_ID.fullmatch(kid):
        raise KeyConfigError(f"key id {kid!r} must be 1-16 of A-Z a-z 0-9 _ -")
    if len(secret) < MIN_SECRET_BYTES:
        raise KeyConfigError(f"key {kid!r} must be at least {MIN_SECRET_BYTES} bytes")


def check_render_keys(keys: Sequence[tuple[str, bytes]]) -> None:
    """:class:`KeyConfigError` unless ``keys`` (``(kid, secret)``, oldest first) make a
    usable key ring: at least one key, each usable, no id twice."""
    if not keys:
        raise KeyConfigError("at least one render key is needed")
    seen: set[str] = set()
    for kid, secret in keys:
        check_render_key(kid, secret)
        if kid in seen:
            raise KeyConfigError(f"key id {kid!r} appears twice")
        seen.add(kid)


def parse_render_keys(spec: str) -> list[tuple[str, bytes]]:
    """The keys of ``"kid:secret,kid:secret"`` (``BODYGRAPH_RENDER_KEYS``: oldest first,
    secrets base64url of at least :data:`MIN_SECRET_BYTES` bytes), checked as a ring."""
    keys = []
    for entry in (part.strip() for part in spec.split(",")):
        if not entry:
            continue
        kid, sep, encoded = entry.partition(":")
        if not sep:
            raise KeyConfigError(f"render key entry {kid!r} must be 'kid:secret'")
        try:
            secret = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
        except (binascii.Error, ValueError) as exc:
            raise KeyConfigError(f"render key {kid!r} is not base64url") from exc
        keys.append((kid, secret))
    check_render_keys(keys)
    return keys


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the service needs to start; immutable.

    Build with ``Settings(...)`` for explicit values or :meth:`from_env` to read the
    environment (explicit keyword arguments win over the environment).
    """

    database_url: str = DEFAULT_DATABASE_URL
    sqlite_busy_timeout: float = DEFAULT_BUSY_TIMEOUT
    rate_limit_url: str = ""
    geocoder: GeocoderName = "google"
    geocoder_url: str = ""
    render_url: str = ""
    public_url: str = ""
    render_keys: str = field(default="", repr=False)
    max_body_bytes: int = 16_384
    request_timeout: float = 15.0
    workers: int = 1
    warm_up: bool = True
    access_log: bool = True

    def __post_init__(self) -> None:
        if self.geocoder not in ("google", "offline"):
            raise SettingsError(f"geocoder must be 'google' or 'offline', not {self.geocoder!r}")
        if self.max_body_bytes < 256:
            raise SettingsError("max_body_bytes must be at least 256")
        if not self.request_timeout > 0:
            raise SettingsError("request_timeout must be positive")
        if not 0 <= self.sqlite_busy_timeout <= 60:
            raise SettingsError("sqlite_busy_timeout must be from 0 to 60 seconds")
        if self.workers < 1:
            raise SettingsError("workers must be at least 1")
        if not self.database_url:
            raise SettingsError("database_url must not be empty")
        for name in ("render_url", "public_url"):
            _check_base_url(name, getattr(self, name))
        path = self.render_path
        if any(path == p or path.startswith(p + "/") for p in _RESERVED_PATHS):
            raise SettingsError(f"render_url path {path!r} collides with the API's paths")
        if self.render_keys.strip():
            try:
                parse_render_keys(self.render_keys)
            except KeyConfigError as exc:
                raise SettingsError(f"{ENV_PREFIX}RENDER_KEYS: {exc}") from exc

    @property
    def render_path(self) -> str:
        """Where this service mounts its image route: the path of ``render_url``, or
        ``/render`` when it is empty or has no path."""
        path = urlsplit(self.render_url).path.rstrip("/")
        return path or DEFAULT_RENDER_PATH

    def render_base(self, request_base_url: str) -> str:
        """The absolute base of ``svgRenderUrl``: ``render_url`` if set, else
        ``{public_url}/render``, else ``{request_base_url}/render`` (the scheme and host the
        request came to)."""
        if self.render_url:
            return self.render_url.rstrip("/")
        origin = self.public_url or request_base_url
        return origin.rstrip("/") + DEFAULT_RENDER_PATH

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, **overrides: Any
    ) -> Settings:
        """Settings from ``BODYGRAPH_*`` variables, then ``overrides`` on top."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for spec in fields(cls):
            raw = env.get(ENV_PREFIX + spec.name.upper())
            if raw is None or raw == "":
                continue
            values[spec.name] = _convert(spec.name, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def with_changes(self, **changes: Any) -> Settings:
        """A copy with some values replaced."""
        return replace(self, **changes)

    def to_env(self) -> dict[str, str]:
        """The environment that :meth:`from_env` turns back into these settings (used to
        hand settings to uvicorn worker processes)."""
        return {ENV_PREFIX + f.name.upper(): _text(getattr(self, f.name)) for f in fields(self)}


def _check_base_url(name: str, value: str) -> None:
    if not value:
        return
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or (
            parts.fragment):
        raise SettingsError(
            f"{name} must be an absolute http(s) URL without query, not {value!r}"
        )


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _convert(name: str, raw: str) -> object:
    try:
        if name in ("max_body_bytes", "workers"):
            return int(raw)
        if name in ("request_timeout", "sqlite_busy_timeout"):
            return float(raw)
    except ValueError as exc:
        raise SettingsError(f"{ENV_PREFIX}{name.upper()}: not a number: {raw!r}") from exc
    if name in ("warm_up", "access_log"):
        if raw.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if raw.strip().lower() in ("0", "false", "no", "off"):
            return False
        raise SettingsError(f"{ENV_PREFIX}{name.upper()}: not a boolean: {raw!r}")
    if name == "geocoder":
        return cast(GeocoderName, raw.strip().lower())
    return raw
