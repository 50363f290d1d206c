"""Compile the gettext catalogs (``src/bodygraph/locale/*/LC_MESSAGES/bodygraph.po``) into
``.mo`` files: the wheel's build hook (registered in pyproject.toml), or by hand into a
folder for a look (``python scripts/build_catalogs.py OUT``). A source checkout needs no
``.mo``: the library compiles a PO file in memory on first use (docs/translating.md)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from hatchling.builders.hooks.plugin.interface import BuildHookInterface

LOCALE = Path(__file__).resolve().parent.parent / "src" / "bodygraph" / "locale"


def compile_catalogs(locale: Path, out: Path) -> dict[str, str]:
    """Write ``out/<folder>/LC_MESSAGES/bodygraph.mo`` for each PO file under ``locale``;
    returns each written file -> its path inside the package (``bodygraph/locale/...``)."""
    written: dict[str, str] = {}
    for po in sorted(locale.glob("*/LC_MESSAGES/bodygraph.po")):
        relative = po.relative_to(locale).with_suffix(".mo")
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        with po.open("rb") as source:
            catalog = read_po(source, locale=po.parent.parent.name, domain="bodygraph")
        with target.open("wb") as sink:
            write_mo(sink, catalog)
        written[str(target)] = f"bodygraph/locale/{relative.as_posix()}"
    return written


class CatalogsBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Adds the compiled catalogs to a (non-editable) wheel."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        out = Path(tempfile.mkdtemp(prefix="bodygraph-catalogs-"))
        build_data["force_include"].update(compile_catalogs(LOCALE, out))


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/locale")
    for path in compile_catalogs(LOCALE, out):
        print(path)
