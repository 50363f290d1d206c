"""Write src/bodygraph/locale/bodygraph.pot: the terms of the tables (their one definition)
and the messages the code marks with ``pgettext`` (``pybabel extract`` with babel.cfg).

Run after a term or a marked message is added or changed, then ``pybabel update`` the
catalogs (docs/translating.md):

    python scripts/make_catalog_template.py
"""

from __future__ import annotations

from bodygraph.i18n.template import TEMPLATE, template_bytes


def main() -> None:
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_bytes(template_bytes())
    print(f"wrote {TEMPLATE}")


if __name__ == "__main__":
    main()
