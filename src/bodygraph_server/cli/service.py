"""The service commands of ``bodygraph-server``: ``serve`` (a flag for every setting but the
secret ``render_keys``; :func:`settings_table` is docs/api.md's table) and ``render-keys``;
the web stack is imported when ``serve`` runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import Field
from typing import Any

from bodygraph.catalog.translations import catalog
from bodygraph_server.billing.accounts import Bookkeeper
from bodygraph_server.billing.deliveries import JournalFolderError, journal_folder, make_folder
from bodygraph_server.billing.opening import open_waiting
from bodygraph_server.cli.console import CommandError, print_json, words
from bodygraph_server.settings import (
    Settings,
    SettingsError,
    convert,
    setting_fields,
    variable,
)

GLOBAL_SETTINGS = ("database_url",)
"""Settings whose flag belongs to ``bodygraph-server`` itself (given before the command)."""


def _serve(book: Bookkeeper, args: argparse.Namespace) -> int:
    # The schema is migrated (by opening the store: waiting for the database while it is
    # unavailable, see open_waiting) before any worker starts.
    accounts_exist = book.store.has_accounts()
    book.close()
    try:
        from bodygraph_server.serve import run
    except ImportError as exc:
        raise CommandError(words(args).pgettext(
            "admin", "the HTTP service is not available: {reason}").format(reason=exc)) from exc
    given = {spec.name: getattr(args, spec.name, None) for spec in setting_fields()}
    given["database_url"] = args.database_url
    settings = Settings.from_env(**given)
    try:  # the workers' journals: refused here in one line rather than in every worker
        make_folder(journal_folder(settings.database_url, settings.journal_dir))
    except JournalFolderError as exc:
        raise CommandError(words(args).pgettext(
            "admin", "the delivery journals' folder {folder} is not a folder of this user "
                     "that only it may write: remove it, or choose another (--journal-dir)",
        ).format(folder=exc.folder)) from None
    run(settings, accounts_exist=accounts_exist)
    return 0


def _default_text(spec: Field[Any], lang: str = "en") -> str:
    """A setting's default as its help says it (``on``, ``off``, ``empty`` in ``lang``)."""
    tr = catalog(lang)
    if isinstance(spec.default, bool):
        return tr.pgettext("admin", "on") if spec.default else tr.pgettext("admin", "off")
    return str(spec.default) if spec.default != "" else tr.pgettext("admin", "empty")


def _setting_type(spec: Field[Any]) -> Callable[[str], object]:
    """An argparse ``type``: the text converted as the variable's would be and checked as
    the setting checks it (a bad value is a usage mistake, exit status 2)."""

    def parse(text: str) -> object:
        try:
            value = convert(spec, text)
            checked: dict[str, Any] = {spec.name: value}
            Settings(**checked)
        except SettingsError as exc:
            message = str(exc).removeprefix(f"{variable(spec)}: ")
            raise argparse.ArgumentTypeError(message) from None
        return value

    return parse


def flag(spec: Field[Any]) -> str:
    """The command-line flag of a setting."""
    return "--" + spec.name.replace("_", "-")


def _add_setting_flags(serve: argparse.ArgumentParser, lang: str) -> None:
    tr = catalog(lang)
    for spec in setting_fields():
        if not spec.metadata["flag"] or spec.name in GLOBAL_SETTINGS:
            continue
        text = tr.pgettext("admin", "{meaning} [{variable}; default: {default}]").format(
            meaning=tr.pgettext("admin", spec.metadata["meaning"]), variable=variable(spec),
            default=_default_text(spec, lang))
        if isinstance(spec.default, bool):
            serve.add_argument(flag(spec), dest=spec.name, default=None,
                               action=argparse.BooleanOptionalAction, help=text)
        elif spec.name == "geocoder":
            serve.add_argument(flag(spec), dest=spec.name, default=None,
                               type=_setting_type(spec), choices=["google", "offline"],
                               help=text)
        else:
            serve.add_argument(flag(spec), dest=spec.name, default=None,
                               type=_setting_type(spec), metavar=spec.name.upper(), help=text)


def settings_table() -> str:
    """The Markdown table of every setting: its flag, its variable, its default and what
    it means (``docs/api.md``, "Settings")."""
    rows = ["| Flag | Variable | Default | Meaning |", "|---|---|---|---|"]
    for spec in setting_fields():
        if not spec.metadata["flag"]:
            shown = "(none: a secret)"
        elif isinstance(spec.default, bool):
            shown = f"`{flag(spec)}`, `--no-{flag(spec)[2:]}`"
        else:
            shown = f"`{flag(spec)}`"
        if spec.name in GLOBAL_SETTINGS:
            shown += " (before the command)"
        meaning = spec.metadata["meaning"].replace("|", "\\|")
        default = _default_text(spec)
        default = default if default in ("empty", "on", "off") else f"`{default}`"
        rows.append(f"| {shown} | `{variable(spec)}` | {default} | {meaning} |")
    return "\n".join(rows) + "\n"


def _render_keys_list(book: Bookkeeper, args: argparse.Namespace) -> int:
    kids = [kid for kid, _secret in book.store.render_keys()]
    tr = words(args)
    if args.json:
        print_json({"kids": kids, "signing": kids[-1] if kids else None})
    elif not kids:
        print(tr.pgettext("admin", "no render key stored yet (the service creates one at its "
                          "first start, unless BODYGRAPH_RENDER_KEYS is set)"))
    else:
        for kid in kids[:-1]:
            print(kid)
        print(tr.pgettext("admin", "{kid}  (signs new links)").format(kid=kids[-1]))
    return 0


def _render_keys_rotate(book: Bookkeeper, args: argparse.Namespace) -> int:
    from bodygraph_server.images.signing_keys import rotate

    key = rotate(book.store, book.clock.now())
    print(words(args).pgettext("admin", "render key {kid} stored; it signs new links after the "
                               "service restarts (older keys keep verifying)").format(kid=key.kid))
    return 0


def add_service_commands(commands: argparse._SubParsersAction[Any],
                         lang: str = "en") -> None:
    """Register ``serve`` and ``render-keys`` on the admin parser's subcommands, their help
    in ``lang``."""
    tr = catalog(lang)
    serve = commands.add_parser(
        "serve", help=tr.pgettext("admin", "run the HTTP service (uvicorn)"),
        description=tr.pgettext("admin", "Run the HTTP service. Each flag overrides its "
                                "BODYGRAPH_* variable; BODYGRAPH_RENDER_KEYS (a secret) is a "
                                "variable only."))
    _add_setting_flags(serve, lang)
    serve.set_defaults(func=_serve, open_book=open_waiting)

    render_keys = commands.add_parser(
        "render-keys", help=tr.pgettext("admin", "render signing keys kept in the database"))
    key_cmds = render_keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    keys_list = key_cmds.add_parser("list", help=tr.pgettext(
        "admin", "list stored key ids (never the secrets)"))
    keys_list.add_argument("--json", action="store_true")
    keys_list.set_defaults(func=_render_keys_list)
    keys_rotate = key_cmds.add_parser("rotate", help=tr.pgettext(
        "admin", "store a new signing key (used after a restart; old links keep working)"))
    keys_rotate.set_defaults(func=_render_keys_rotate)
