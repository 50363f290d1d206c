"""One typed settings object, from constructor arguments, ``BODYGRAPH_*`` variables and
the ``bodygraph-server serve`` flags built from it. Every setting's meaning, variable,
flag and default: the table in ``docs/api.md`` ("Settings"), tested against the parser.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import Field, dataclass, field, fields, replace
from typing import Any, Literal, cast
from urllib.parse import urlsplit

from bodygraph.catalog.translations import pgettext
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


def _setting(default: Any, meaning: str, *, flag: bool = True, secret: bool = False) -> Any:
    """A :class:`Settings` field: its default, what it means (the flag's help and the
    docs' table; a ``serve`` flag's meaning is marked for the catalogs, context ``admin``,
    and said in the asked language by ``serve --help``) and whether ``serve`` has a flag
    for it (a secret has none: a command line is visible to every user of the machine)."""
    return field(default=default, repr=not secret,
                 metadata={"meaning": meaning, "flag": flag and not secret})


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the service needs to start; immutable.

    Build with ``Settings(...)`` for explicit values or :meth:`from_env` to read the
    environment (explicit keyword arguments win over the environment). Each field's
    variable is ``BODYGRAPH_<NAME>`` and its ``serve`` flag ``--<name>`` (see
    :func:`setting_fields`).
    """

    host: str = _setting("127.0.0.1", pgettext(
        "admin", "address to listen on (0.0.0.0: every interface)"))
    port: int = _setting(8000, pgettext(
        "admin", "TCP port to listen on"))
    database_url: str = _setting(  # not a serve flag's help: not in the catalogs
        DEFAULT_DATABASE_URL,
        "sqlite:///path/to.db or postgresql://user@host/db (also every other command's; "
        "give the flag before the command)")
    sqlite_busy_timeout: float = _setting(DEFAULT_BUSY_TIMEOUT, pgettext(
        "admin", "seconds a SQLite write waits for a lock another program holds before the "
                 "request is answered 503 SERVICE_UNAVAILABLE"))
    journal_dir: str = _setting("", pgettext(
        "admin", "folder of the PostgreSQL workers' delivery journals, which must outlive a "
                 "worker but not the machine and which only the service's user may write, "
                 "such as /run/bodygraph (empty: the temporary folder)"))
    rate_limit_url: str = _setting("", pgettext(
        "admin", "where the rate-limit windows live: empty or 'store' (the database) or "
                 "redis://host:port/db"))
    geocoder: GeocoderName = _setting(  # noqa: RUF009 - a str, immutable
        "google", pgettext(
            "admin", "'google' (the caller's HD-Geocode-Key is a Google key) or 'offline' (the "
                     "built-in gazetteer)"))
    geocoder_url: str = _setting("", pgettext(
        "admin", "scheme://host:port of a server speaking the Google Geocoding API in Google's "
                 "place (empty: Google itself)"))
    render_url: str = _setting("", pgettext(
        "admin", "base of svgRenderUrl ({render_url}/TEMPLATE.svg?t=TOKEN); the image route is "
                 "mounted at its path (empty: {public_url}/render)"))
    public_url: str = _setting("", pgettext(
        "admin", "the service's public base address, https://api.example.com, for image links "
                 "(empty: the scheme and host of each request, within allowed_hosts)"))
    allowed_hosts: str = _setting("", pgettext(
        "admin", "Host header values answered, comma-separated ('*.example.com' for "
                 "subdomains, '*' for any); others get 400 (empty: localhost, 127.0.0.1, "
                 "[::1], the host listened on unless it is every interface, and the hosts of "
                 "public_url and render_url)"))
    forwarded_allow_ips: str = _setting("", pgettext(
        "admin", "IP addresses or networks (10.0.0.0/8) of the proxies whose X-Forwarded-For "
                 "and X-Forwarded-Proto are believed, comma-separated ('*': every client; "
                 "empty: none)"))
    render_keys: str = _setting(  # a secret, no flag: not in the catalogs
        "", "render signing keys kid:secret,kid:secret, oldest first, the last signs "
            "(empty: keys generated once and kept in the database)", secret=True)
    max_body_bytes: int = _setting(16_384, pgettext(
        "admin", "largest request body accepted, in bytes"))
    request_timeout: float = _setting(15.0, pgettext(
        "admin", "seconds a chart request may take, geocoding included"))
    workers: int = _setting(1, pgettext(
        "admin", "uvicorn worker processes"))
    warm_up: bool = _setting(True, pgettext(
        "admin", "compute one chart at start-up, so that the first request does not pay for "
                 "loading the ephemeris and the time-zone data"))
    access_log: bool = _setting(True, pgettext(
        "admin", "log a line per request (method, path, status; never a query, a body or the "
                 "client address)"))
    jobs: bool = _setting(True, pgettext(
        "admin", "compute queued job chunks in this instance's workers (off: accept and serve "
                 "jobs, leave the computing to other instances on the database)"))
    job_processes: int = _setting(1, pgettext(
        "admin", "processes of each service worker that compute job chunks, at a lower "
                 "priority than requests"))
    job_chunk_rows: int = _setting(10_000, pgettext(
        "admin", "births per chunk of a job (the unit of work and of resumption)"))
    job_lease: float = _setting(120.0, pgettext(
        "admin", "seconds a claimed chunk stays its worker's; after that any worker computes "
                 "it again (its worker died)"))
    job_retention_hours: float = _setting(168.0, pgettext(
        "admin", "hours a job's result is kept after the job ended (then the sweep deletes it)"))
    max_job_bytes: int = _setting(268_435_456, pgettext(
        "admin", "largest job upload accepted, in bytes (after gzip decoding)"))
    dask_scheduler: str = _setting("", pgettext(
        "admin", "address of a Dask scheduler (tcp://host:8786) whose workers compute the job "
                 "chunks (empty: the service's own processes; docs/jobs.md)"))
    allow_private_callbacks: bool = _setting(False, pgettext(
        "admin", "accept job callback URLs that are plain http or resolve to private, loopback "
                 "or link-local addresses (tests, closed networks; docs/jobs.md)"))

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
        if self.job_processes < 1 or self.job_chunk_rows < 1:
            raise SettingsError("job_processes and job_chunk_rows must be at least 1")
        if not (self.job_lease > 0 and self.job_retention_hours > 0):
            raise SettingsError("job_lease and job_retention_hours must be positive")
        if self.max_job_bytes < 256:
            raise SettingsError("max_job_bytes must be at least 256")
        if not 0 <= self.port <= 65535:
            raise SettingsError("port must be from 0 to 65535")
        if not self.host.strip():
            raise SettingsError("host must not be empty")
        hosts = self.trusted_hosts  # the wildcard rule of Starlette's TrustedHostMiddleware
        if any("*" in h[1:] or (h.startswith("*") and h != "*" and not h.startswith("*."))
               for h in hosts):
            raise SettingsError("allowed_hosts: a wildcard must be '*' or like '*.example.com'")
        if not self.database_url:
            raise SettingsError("database_url must not be empty")
        _check_proxies(self.forwarded_ips)
        if self.rate_limit_url not in ("", "store") and not self.rate_limit_url.startswith(
                ("redis://", "rediss://", "unix://")):
            raise SettingsError("rate_limit_url must be empty, 'store' or redis://host:port/db, "
                                f"not {self.rate_limit_url!r}")
        for name in ("render_url", "public_url"):
            _check_base_url(name, getattr(self, name))
        path = self.render_path
        if any(path == p or path.startswith(p + "/") for p in _RESERVED_PATHS):
            raise SettingsError(f"render_url path {path!r} collides with the API's paths")
        _check_dask_scheduler(self.dask_scheduler)
        if self.render_keys.strip():
            try:
                parse_render_keys(self.render_keys)
            except KeyConfigError as exc:
                raise SettingsError(f"{ENV_PREFIX}RENDER_KEYS: {exc}") from exc

    @property
    def trusted_hosts(self) -> list[str]:
        """The ``Host`` values answered: ``allowed_hosts``, or when it is empty the local
        names, the address listened on (unless it is every interface) and the hosts of
        ``public_url`` and ``render_url``."""
        given = _items(self.allowed_hosts)
        if given:
            return given
        names = [urlsplit(url).hostname for url in (self.public_url, self.render_url)]
        if self.host not in ("0.0.0.0", "::", ""):
            names.append(self.host.strip("[]"))
        local = ["localhost", "127.0.0.1", "[::1]"]
        local += [f"[{name}]" if ":" in name else name for name in names if name]
        return list(dict.fromkeys(h.lower() for h in local))

    @property
    def forwarded_ips(self) -> list[str]:
        """The proxy addresses whose forwarded headers uvicorn applies (none by default)."""
        return _items(self.forwarded_allow_ips)

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
        """Settings from ``BODYGRAPH_*`` variables, then ``overrides`` on top. A variable
        whose value the service cannot use is a :class:`SettingsError` naming it."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for spec in fields(cls):
            raw = env.get(ENV_PREFIX + spec.name.upper())
            if raw is None or raw == "" or overrides.get(spec.name) is not None:
                continue
            values[spec.name] = convert(spec, raw)
            try:
                cls(**{spec.name: values[spec.name]})  # checked alone, to name the variable
            except SettingsError as exc:
                message = str(exc).removeprefix(f"{variable(spec)}: ")
                raise SettingsError(f"{variable(spec)}: {message}") from exc
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


#: The address schemes of ``distributed`` a scheduler is reached by.
_DASK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")


def _check_dask_scheduler(address: str) -> None:
    """Empty, or ``scheme://host:port`` (a scheme of ``distributed``) or ``host:port``."""
    if not address:
        return
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    host, colon, port = rest.rpartition(":")
    if scheme not in _DASK_SCHEMES or not colon or not host or not port.isdigit() or any(
            c.isspace() for c in address):
        raise SettingsError(
            f"dask_scheduler must be like tcp://host:8786 or host:8786, not {address!r}")


def _check_proxies(proxies: list[str]) -> None:
    """What uvicorn's proxy-headers check understands: ``*`` alone, IP addresses and
    networks (``10.0.0.0/8``, no host bits)."""
    if proxies == ["*"]:
        return
    for proxy in proxies:
        try:
            if "/" in proxy:
                ipaddress.ip_network(proxy)
            else:
                ipaddress.ip_address(proxy)
        except ValueError:
            raise SettingsError(
                f"forwarded_allow_ips: {proxy!r} is not an IP address or network "
                "(like 10.0.0.1 or 10.0.0.0/8); '*' must stand alone") from None


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _items(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def setting_fields() -> tuple[Field[Any], ...]:
    """The fields of :class:`Settings` in order; ``metadata["meaning"]`` says what each
    holds, ``metadata["flag"]`` whether ``serve`` has a flag for it."""
    return fields(Settings)


def variable(spec: Field[Any]) -> str:
    """The environment variable of a setting: ``BODYGRAPH_<NAME>``."""
    return ENV_PREFIX + spec.name.upper()


def convert(spec: Field[Any], raw: str) -> object:
    """The value of setting ``spec`` written as ``raw`` (a variable's or a flag's text);
    :class:`SettingsError` when it is not of the setting's kind."""
    default: object = spec.default
    if isinstance(default, bool):
        if raw.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if raw.strip().lower() in ("0", "false", "no", "off"):
            return False
        raise SettingsError(f"{variable(spec)}: not a boolean: {raw!r}")
    try:
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError as exc:
        raise SettingsError(f"{variable(spec)}: not a number: {raw!r}") from exc
    if spec.name == "geocoder":
        return cast(GeocoderName, raw.strip().lower())
    return raw
