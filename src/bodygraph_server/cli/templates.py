"""``bodygraph-server templates ...``: create, list, show, activate and delete render
templates (the reference: docs/render.md, "Templates"); the renderer and the template store
are imported when a command runs, so other admin commands stay light."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from bodygraph.catalog.translations import catalog
from bodygraph_server.cli.argtypes import NOT_TEMPLATE_ID, account_id
from bodygraph_server.cli.console import CommandError, words

if TYPE_CHECKING:
    from bodygraph.render import Theme
    from bodygraph_server.billing.accounts import Bookkeeper
    from bodygraph_server.images.templates import Template, TemplateStore


Handler = Callable[["Bookkeeper", argparse.Namespace], int]


def _template_id(text: str) -> UUID:
    try:
        return UUID(text)
    except ValueError:
        raise argparse.ArgumentTypeError(NOT_TEMPLATE_ID.format(text=repr(text))) from None


def _template_or_default(text: str) -> UUID | None:
    return None if text == "default" else _template_id(text)


def store_of(book: Bookkeeper) -> TemplateStore:
    """The template store of the bookkeeping database."""
    from bodygraph_server.images.templates import SqlTemplateStore
    return SqlTemplateStore(book.store)


def _theme_from(args: argparse.Namespace) -> Theme:
    from bodygraph.render import Theme

    if args.theme is not None:
        raw: Any = json.loads(Path(args.theme).read_text(encoding="utf-8"))
    elif args.theme_json is not None:
        raw = json.loads(args.theme_json)
    else:
        raw = {}
    base = Theme.preset(args.preset) if args.preset is not None else None
    return Theme.from_dict(raw, base=base)


def _print(template: Template, as_json: bool, args: argparse.Namespace) -> None:
    if as_json:
        print(json.dumps(template.to_dict(), indent=2))
        return
    tr = words(args)
    line = (tr.pgettext("admin", "{template}  {name}  (active, account {account})")
            if template.active else
            tr.pgettext("admin", "{template}  {name}  (inactive, account {account})"))
    print(line.format(template=template.id, name=template.name, account=template.account_id))


def _create(book: Bookkeeper, args: argparse.Namespace) -> int:
    template = store_of(book).create(args.account, args.name, _theme_from(args),
                                     activate=args.activate, now=book.clock.now())
    _print(template, args.json, args)
    return 0


def _list(book: Bookkeeper, args: argparse.Namespace) -> int:
    book.account(args.account)  # unknown account: a clear error
    templates = store_of(book).for_account(args.account)
    if args.json:
        print(json.dumps([t.to_dict() for t in templates], indent=2))
    elif not templates:
        print(words(args).pgettext("admin", "account {account} has no templates (images use "
                                   "the default theme)").format(account=args.account))
    else:
        for template in templates:
            _print(template, False, args)
    return 0


def _show(book: Bookkeeper, args: argparse.Namespace) -> int:
    template = store_of(book).get(args.template)
    if template is None:
        raise CommandError(words(args).pgettext("admin", "no template {template}").format(
            template=args.template))
    _print(template, True, args)
    return 0


def _activate(book: Bookkeeper, args: argparse.Namespace) -> int:
    book.account(args.account)
    store_of(book).activate(args.account, args.template)
    tr = words(args)
    line = (tr.pgettext("admin", "account {account} now renders with the default theme")
            if args.template is None else
            tr.pgettext("admin", "account {account} now renders with template {template}"))
    print(line.format(account=args.account, template=args.template))
    return 0


def _delete(book: Bookkeeper, args: argparse.Namespace) -> int:
    store_of(book).delete(args.account, args.template)
    print(words(args).pgettext("admin", "template {template} deleted").format(
        template=args.template))
    return 0


def _reported(run: Handler) -> Handler:
    """``run`` with the template store's refusals turned into :class:`CommandError`."""

    def reported(book: Bookkeeper, args: argparse.Namespace) -> int:
        from bodygraph_server.images.templates import TemplateError

        try:
            return run(book, args)
        except TemplateError as exc:
            raise CommandError(str(exc)) from exc

    return reported


def add_template_commands(commands: argparse._SubParsersAction[Any],
                          lang: str = "en") -> None:
    """Register ``templates`` and its actions on the admin parser's subcommands, their help
    in ``lang``."""
    tr = catalog(lang)
    templates = commands.add_parser("templates", help=tr.pgettext(
        "admin", "render templates: themes of visual charts"))
    actions = templates.add_subparsers(dest="action", required=True, metavar="ACTION")

    create = actions.add_parser("create", help=tr.pgettext("admin", "store a template for an "
                                                           "account"))
    create.add_argument("account", type=account_id, metavar="ACCOUNT")
    create.add_argument("--name", required=True)
    create.add_argument("--preset", metavar="NAME", help=tr.pgettext(
        "admin", "start from a shipped theme (light, dark, print, high-contrast); --theme or "
        "--theme-json change it further"))
    source = create.add_mutually_exclusive_group()
    source.add_argument("--theme", metavar="FILE", help=tr.pgettext("admin", "theme JSON file"))
    source.add_argument("--theme-json", metavar="JSON",
                        help=tr.pgettext("admin", "theme JSON text"))
    create.add_argument("--activate", action="store_true",
                        help=tr.pgettext("admin", "make it the active template"))
    create.add_argument("--json", action="store_true")
    create.set_defaults(func=_reported(_create))

    listing = actions.add_parser("list", help=tr.pgettext("admin", "list an account's "
                                                          "templates"))
    listing.add_argument("account", type=account_id, metavar="ACCOUNT")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(func=_reported(_list))

    show = actions.add_parser("show", help=tr.pgettext("admin", "show one template with its "
                                                       "theme (JSON)"))
    show.add_argument("template", type=_template_id, metavar="TEMPLATE")
    show.set_defaults(func=_reported(_show))

    activate = actions.add_parser("activate", help=tr.pgettext(
        "admin", "choose the active template (or default)"))
    activate.add_argument("account", type=account_id, metavar="ACCOUNT")
    activate.add_argument("template", type=_template_or_default, metavar="TEMPLATE|default")
    activate.set_defaults(func=_reported(_activate))

    delete = actions.add_parser("delete", help=tr.pgettext("admin", "delete a template"))
    delete.add_argument("account", type=account_id, metavar="ACCOUNT")
    delete.add_argument("template", type=_template_id, metavar="TEMPLATE")
    delete.set_defaults(func=_reported(_delete))
