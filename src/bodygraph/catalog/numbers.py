"""Numbers in prose (help texts, progress and summary lines, messages) as a language writes
them: its group separator, decimal mark and percent sign are the catalogs' (context
``number``, CLDR's symbols); English is Python's own ``f"{n:,}"``. Data stays as it is."""

from __future__ import annotations

import re
from typing import Final

from bodygraph.catalog.translations import SOURCE_LANGUAGE, catalog, pgettext

#: Between groups of three digits: ``20,000`` (CLDR's group symbol of the language).
GROUP: Final = pgettext("number", ",")
#: Before the decimals: ``0.5`` (CLDR's decimal symbol of the language).
DECIMAL: Final = pgettext("number", ".")
#: A share in percent (CLDR's percent pattern of the language: the space before ``%``).
PERCENT: Final = pgettext("number", "{number}%")

#: A number as Python's ``{:,}`` writes it with grouping: ``1,000,000``, ``12,345.6``.
_GROUPED: Final = re.compile(r"-?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")


def _symbols(english: str, lang: str) -> str:
    """``english`` (digits, ``,`` and ``.``) with the separators of ``lang``."""
    if lang == SOURCE_LANGUAGE:
        return english
    tr = catalog(lang)
    group, mark = tr.pgettext("number", GROUP), tr.pgettext("number", DECIMAL)
    return "".join(group if c == "," else mark if c == "." else c for c in english)


def number_text(value: float, lang: str, decimals: int = 0) -> str:
    """``value`` grouped by thousands with ``decimals`` decimals, as ``lang`` writes it:
    ``number_text(20000, "de")`` -> ``"20.000"``; in English ``f"{value:,.{decimals}f}"``
    (an ``int`` without decimals: ``f"{value:,}"``)."""
    english = (f"{value:,}" if isinstance(value, int) and not decimals
               else f"{value:,.{decimals}f}")
    return _symbols(english, lang)


def percent_text(share: float, lang: str, decimals: int = 1) -> str:
    """``share`` (1.0 is all) in percent as ``lang`` writes it: ``0.123`` -> ``"12.3%"``,
    ``"12,3 %"`` in German."""
    number = number_text(share * 100.0, lang, decimals)
    return number + "%" if lang == SOURCE_LANGUAGE else catalog(lang).pgettext(
        "number", PERCENT).format(number=number)


def grouped_in(text: str, lang: str) -> str:
    """``text`` in the separators of ``lang`` when it is one number Python wrote grouped
    (``"1,000,000"``); any other text unchanged (a typed value, a list, a code)."""
    return _symbols(text, lang) if _GROUPED.fullmatch(text) else text
