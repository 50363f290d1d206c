"""Render templates: named themes per account, at most one active (its UUID is the path of
the account's ``svgRenderUrl``), kept in the bookkeeping database's ``render_templates``
(docs/render.md, "Templates")."""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID

from bodygraph.catalog.translations import pgettext
from bodygraph.render import Theme
from bodygraph_server.policy.clock import from_micros, to_micros
from bodygraph_server.store import StoreError
from bodygraph_server.store.base import TransactionSource
from bodygraph_server.store.connections import Row, Tx

NAME_MAX = 80

#: The refusal of a failed lookup (``{reason}``: the store's error).
LOOKUP_FAILED = pgettext("service error", "template lookup failed: {reason}")


class TemplateLookupError(Exception):
    """The template source cannot answer now (for example the database is down)."""


class TemplateError(Exception):
    """Base class of template errors (one-line messages)."""


class TemplateNotFoundError(TemplateError):
    """No template with that id belongs to the account."""


class InvalidTemplateError(TemplateError, ValueError):
    """A template name or theme that cannot be stored."""


@dataclass(frozen=True, slots=True)
class Template:
    """A named theme of one account."""

    id: UUID
    account_id: int
    name: str
    theme: Theme
    active: bool
    created_at: datetime

    def to_dict(self) -> dict[str, object]:
        """The stable JSON form (admin CLI ``--json``)."""
        return {
            "template_id": str(self.id),
            "account_id": self.account_id,
            "name": self.name,
            "active": self.active,
            "created_at": self.created_at.isoformat().replace("+00:00", "Z"),
            "theme": self.theme.to_dict(),
        }


class TemplateStore(Protocol):
    """Where templates live. Blocking and thread-safe, like the bookkeeping store."""

    def create(self, account_id: int, name: str, theme: Theme, *, activate: bool,
               now: datetime) -> Template:
        """Store a new template (and make it the active one when ``activate``)."""
        ...

    def for_account(self, account_id: int) -> list[Template]:
        """The account's templates, oldest first (then by name)."""
        ...

    def get(self, template_id: UUID) -> Template | None:
        """A template by id, whichever account it belongs to."""
        ...

    def active(self, account_id: int) -> Template | None:
        """The account's active template, if any."""
        ...

    def activate(self, account_id: int, template_id: UUID | None) -> None:
        """Make ``template_id`` the active template; ``None``: back to the default theme."""
        ...

    def delete(self, account_id: int, template_id: UUID) -> None:
        """Delete a template (if it was active, the account falls back to the default)."""
        ...


def check_name(name: str) -> str:
    """A template name: 1 to 80 printable characters, surrounding spaces removed."""
    cleaned = name.strip()
    if not cleaned or len(cleaned) > NAME_MAX or not cleaned.isprintable():
        raise InvalidTemplateError(f"template name must be 1 to {NAME_MAX} printable characters")
    return cleaned


_COLUMNS = "id, account_id, label, theme, active, created_us"


def _from_row(row: Row) -> Template:
    return Template(
        id=UUID(str(row.id)),
        account_id=int(row.account_id),
        name=str(row.label),
        theme=Theme.from_dict(json.loads(str(row.theme))),
        active=bool(row.active),
        created_at=from_micros(int(row.created_us)),
    )


class SqlTemplateStore:
    """:class:`TemplateStore` in the bookkeeping database, over the store's connections."""

    def __init__(self, store: TransactionSource) -> None:
        self._store = store

    def create(self, account_id: int, name: str, theme: Theme, *, activate: bool,
               now: datetime) -> Template:
        """See :class:`TemplateStore`; the account must exist."""
        cleaned = check_name(name)
        template_id = uuid.uuid4()
        with self._store.write_transaction() as tx:
            self._store.lock_account(tx, account_id)
            if activate:
                tx.execute("UPDATE render_templates SET active = 0 WHERE account_id = ?",
                           (account_id,))
            tx.execute(
                f"INSERT INTO render_templates ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                (str(template_id), account_id, cleaned, _theme_json(theme), int(activate),
                 to_micros(now)),
            )
            row = tx.one(f"SELECT {_COLUMNS} FROM render_templates WHERE id = ?",
                         (str(template_id),))
        assert row is not None
        return _from_row(row)

    def for_account(self, account_id: int) -> list[Template]:
        """See :class:`TemplateStore`."""
        with self._store.read_transaction() as tx:
            rows = tx.rows(
                f"SELECT {_COLUMNS} FROM render_templates WHERE account_id = ? "
                "ORDER BY created_us, label, id", (account_id,))
        return [_from_row(r) for r in rows]

    def get(self, template_id: UUID) -> Template | None:
        """See :class:`TemplateStore`."""
        with self._store.read_transaction() as tx:
            row = tx.one(f"SELECT {_COLUMNS} FROM render_templates WHERE id = ?",
                         (str(template_id),))
        return None if row is None else _from_row(row)

    def active(self, account_id: int) -> Template | None:
        """See :class:`TemplateStore`."""
        with self._store.read_transaction() as tx:
            row = tx.one(f"SELECT {_COLUMNS} FROM render_templates "
                         "WHERE account_id = ? AND active = 1", (account_id,))
        return None if row is None else _from_row(row)

    def activate(self, account_id: int, template_id: UUID | None) -> None:
        """See :class:`TemplateStore`; :class:`TemplateNotFoundError` for another account's
        or an unknown template (nothing changes then)."""
        with self._store.write_transaction() as tx:
            self._store.lock_account(tx, account_id)
            if template_id is not None:
                self._require(tx, account_id, template_id)
            tx.execute("UPDATE render_templates SET active = 0 WHERE account_id = ?",
                       (account_id,))
            if template_id is not None:
                tx.execute("UPDATE render_templates SET active = 1 WHERE id = ?",
                           (str(template_id),))

    def delete(self, account_id: int, template_id: UUID) -> None:
        """See :class:`TemplateStore`."""
        with self._store.write_transaction() as tx:
            self._store.lock_account(tx, account_id)
            self._require(tx, account_id, template_id)
            tx.execute("DELETE FROM render_templates WHERE id = ?", (str(template_id),))

    @staticmethod
    def _require(tx: Tx, account_id: int, template_id: UUID) -> None:
        row = tx.one("SELECT account_id FROM render_templates WHERE id = ?",
                     (str(template_id),))
        if row is None or int(row.account_id) != account_id:
            raise TemplateNotFoundError(f"account {account_id} has no template {template_id}")


def _theme_json(theme: Theme) -> str:
    return json.dumps(theme.to_dict(), separators=(",", ":"), sort_keys=True)


class TemplateHub:
    """The running service's view of the templates, bound to the store in the lifespan.

    It is the image route's :class:`~bodygraph_server.images.route.TemplateSource` (a store
    failure becomes :class:`TemplateLookupError`, HTTP 503) and
    tells the visual-chart endpoints an account's active template id.
    """

    def __init__(self, store: TemplateStore | None = None) -> None:
        self._store = store
        self._lock = threading.Lock()

    def bind(self, store: TemplateStore | None) -> None:
        """Attach (or, with ``None``, detach) the template store."""
        with self._lock:
            self._store = store

    def _bound(self) -> TemplateStore:
        with self._lock:
            store = self._store
        if store is None:
            raise TemplateLookupError(pgettext("service error", "the template store is not ready"))
        return store

    def style_for(self, template_id: UUID) -> Theme | None:
        """The theme of a template (any account's: the UUID is the capability)."""
        store = self._bound()
        try:
            template = store.get(template_id)
        except StoreError as exc:
            raise TemplateLookupError(LOOKUP_FAILED.format(reason=exc)) from exc
        return None if template is None else template.theme

    def active_id(self, account_id: int) -> UUID | None:
        """The account's active template id, ``None`` for the default theme."""
        template = self._bound().active(account_id)
        return None if template is None else template.id
