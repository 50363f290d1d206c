"""Write docs/glossary/<lang>.md, the glossary of each language, from its catalog.

Run from the repository root after a catalog changes (docs/translating.md):

    python scripts/make_glossary.py
"""

from __future__ import annotations

from bodygraph.i18n.glossary import GLOSSARY_DIR, glossary
from bodygraph.i18n.template import translated_languages


def main() -> None:
    GLOSSARY_DIR.mkdir(parents=True, exist_ok=True)
    for lang in translated_languages():
        path = GLOSSARY_DIR / f"{lang}.md"
        path.write_text(glossary(lang), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
