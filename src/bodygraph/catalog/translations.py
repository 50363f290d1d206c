"""The chart's words in another language, from the gettext catalogs of ``bodygraph/locale``.

A catalog is loaded on first use of its language, once per process: the compiled
``bodygraph.mo`` a wheel ships (built by the build), else the ``bodygraph.po`` of a source
checkout compiled in memory with Babel. Nothing is loaded at ``import bodygraph``.
The English terms are the catalogs' ``msgid``; docs/languages.md says what is translated.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from importlib import resources
from io import BytesIO
from typing import TYPE_CHECKING, Any, NamedTuple

from bodygraph.catalog.tables import lower_leading_the, tables
from bodygraph.errors import BodygraphError, UnsupportedLanguageError

if TYPE_CHECKING:
    from bodygraph.model.chart import Body, Chart

#: The supported languages (BCP 47 codes); ``en`` is the source the catalogs translate.
LANGUAGES: tuple[str, ...] = ("en", "de", "nl", "es", "fr", "pt", "it", "ru", "ja", "zh-Hans")
SOURCE_LANGUAGE = "en"
DOMAIN = "bodygraph"

#: How a cross is written, by angle (``{name}``: the cross's name).
ANGLE_PATTERNS: dict[str, str] = {
    angle: f"{angle} Cross of {{name}}" for angle in ("Right Angle", "Left Angle",
                                                      "Juxtaposition")
}
#: How a channel is written in ``channelsLong`` (its short name follows in brackets).
CHANNEL_PATTERN = "The Channel of {name}"
#: The names of the seven variables, as the contract's keys name them.
VARIABLE_WORDS: tuple[str, ...] = (
    "Determination", "Cognition", "Environment", "Motivation", "Transference", "Perspective",
    "Distraction",
)
SIDE_WORDS: tuple[str, ...] = ("Personality", "Design")
RELATION_WORDS: tuple[str, ...] = ("Transit", "Connection", "Composite", "Penta")

#: The word fields of ``Chart.to_v2()`` that :func:`chart_labels` translates, in its order,
#: with the catalog context of their words (None: a field written from several terms).
WORD_FIELDS: dict[str, str | None] = {
    "type": "type",
    "centers": "center",
    "strategy": "strategy",
    "authority": "authority",
    "incarnationCross": None,
    "definition": "definition",
    "signature": "signature",
    "notSelfTheme": "not-self theme",
    "cognition": "cognition",
    "determination": "determination",
    "motivation": "motivation",
    "transference": "motivation",
    "perspective": "perspective",
    "distraction": "perspective",
    "environment": "environment",
    "circuitries": "circuitry",
    "channelsLong": None,
}

_CROSS = re.compile(r"^(?P<angle>.+?) Cross of (?P<name>.+) (?P<gates>\(.+\))$")


def languages() -> tuple[str, ...]:
    """The codes :meth:`Chart.labels <bodygraph.Chart.labels>` and
    ``ChartTable.to_pandas(lang=...)`` take: ``en`` (the source) and nine translations."""
    return LANGUAGES


def locale_folder(lang: str) -> str:
    """The catalog folder of a language under ``bodygraph/locale``: ``zh-Hans`` ->
    ``zh_Hans`` (gettext's spelling)."""
    return lang.replace("-", "_")


def _checked(lang: str) -> str:
    if lang not in LANGUAGES:
        raise UnsupportedLanguageError(lang, LANGUAGES)
    return lang


def _compiled(lang: str) -> BytesIO:
    """The ``.mo`` bytes of a language: the compiled file if the install has one as new as
    its PO file, else the PO file compiled here (a source checkout, with Babel)."""
    folder = resources.files("bodygraph").joinpath(
        f"locale/{locale_folder(lang)}/LC_MESSAGES")
    mo, po = folder.joinpath(f"{DOMAIN}.mo"), folder.joinpath(f"{DOMAIN}.po")
    if mo.is_file() and not (po.is_file() and _newer(po, mo)):
        return BytesIO(mo.read_bytes())
    try:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
    except ImportError as missing:
        raise BodygraphError(
            f"the {lang} catalog of this install is not compiled: install Babel "
            "(pip install babel) or install bodygraph from a wheel") from missing
    with po.open("rb") as source:
        catalog = read_po(source, locale=locale_folder(lang), domain=DOMAIN)
    out = BytesIO()
    write_mo(out, catalog)
    out.seek(0)
    return out


def _newer(a: Any, b: Any) -> bool:
    """Whether file ``a`` was changed after file ``b`` (both real files of the package)."""
    from pathlib import Path

    return bool(Path(str(a)).stat().st_mtime > Path(str(b)).stat().st_mtime)


@cache
def catalog(lang: str) -> gettext.NullTranslations:
    """The loaded catalog of a supported language (``en``: the identity), once a process."""
    if _checked(lang) == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    return gettext.GNUTranslations(_compiled(lang))


def pgettext(context: str, message: str) -> str:
    """Marks ``message`` for the catalogs (``pybabel extract`` reads the call) and gives it
    back unchanged: the one marker of the code's English messages."""
    return message


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    """Marks a message with a count for the catalogs (a ``msgid_plural`` entry, one
    translation a plural form of the language) and gives back its English form for ``n``:
    ``singular`` for 1, else ``plural``."""
    return singular if n == 1 else plural


class Counted(NamedTuple):
    """A message with a count in a table of messages: its context, English singular and
    plural and the field that holds the count (made by :func:`counted`)."""

    context: str
    singular: str
    plural: str
    field: str

    def english(self, n: int) -> str:
        """The English form for ``n``."""
        return npgettext(self.context, self.singular, self.plural, n)

    def said(self, lang: str, n: int) -> str:
        """The form of ``lang`` for ``n`` (its catalog's plural rule), still a pattern."""
        return catalog(lang).npgettext(self.context, self.singular, self.plural, n)


def counted(context: str, singular: str, plural: str, field: str) -> Counted:
    """Marks a message with a count for the catalogs, as :func:`npgettext` does, where the
    count is known later: ``field`` names the placeholder that holds it."""
    return Counted(context, singular, plural, field)


#: The counts :func:`plural_table` gives the form of: a script takes ``n`` below it, else
#: ``100 + n % 100`` (every language's rule repeats so from 100 on).
PLURAL_TABLE_SIZE = 200


def plural_index(lang: str, n: int) -> int:
    """Which plural form of ``lang`` (its catalog's Plural-Forms rule) the count ``n``
    takes: ``en`` 0 for 1, else 1."""
    if _checked(lang) == SOURCE_LANGUAGE:
        return int(n != 1)
    # the rule GNUTranslations compiles from the catalog's header (not in its stubs)
    rule: Callable[[int], int] = vars(catalog(lang))["plural"]
    return int(rule(n))


@cache
def plural_table(lang: str) -> str:
    """The form of each count 0 to 199 in ``lang`` as one digit each (``"1011..."`` in
    English): a page's script chooses a plural form with it
    (``n < 200 ? n : 100 + n % 100``). Worked out once a process per language (a page
    asks it for each of its messages with a count)."""
    return "".join(str(plural_index(lang, n)) for n in range(PLURAL_TABLE_SIZE))


def plural_forms(message: Counted, lang: str) -> list[str]:
    """Every plural form of ``message`` in ``lang``, in its catalog's order."""
    table = plural_table(lang)
    return [message.said(lang, table.index(str(form)))
            for form in range(int(max(table)) + 1)]


def count_in(value: str) -> int:
    """The count a field's text holds, for a plural rule: its digits, whatever groups them
    (``"1,250"``, ``"1.250"``, ``"1 250"`` -> 1250); 0 when it holds none."""
    digits = re.sub(r"\D", "", value)
    return int(digits) if digits else 0


#: Between the items of a list in readable text (``、`` in Japanese and Chinese): the
#: command line's, the images' and the MCP tools' words, never a JSON or CSV value.
LIST_JOINER = pgettext("cli", ", ")


def listed(items: Iterable[str], lang: str) -> str:
    """Items of readable text (already in ``lang``) joined as ``lang`` joins a list:
    ``"Sacral, Root"``, ``"仙骨、ルート"``."""
    return catalog(lang).pgettext("cli", LIST_JOINER).join(items)


def term(context: str, english: str, lang: str) -> str:
    """One term in ``lang``: ``term("type", "Projector", "de")`` -> ``"Projektor"``."""
    return catalog(lang).pgettext(context, english)


def english_body_name(code: str) -> str:
    """A body's English name from its contract code: ``"northNode"`` -> ``"North Node"``."""
    return " ".join(p.capitalize() for p in re.findall(r"[a-z]+|[A-Z][a-z]*", code))


def body_name(body: Body | str, lang: str) -> str:
    """A body's name in ``lang`` from its code: ``"northNode"`` -> ``"Nordknoten"``."""
    return term("body", english_body_name(str(getattr(body, "value", body))), lang)


@cache
def _cross_names() -> dict[str, str]:
    """Each cross's name as it stands in a cross's text -> its name in the tables."""
    return {lower_leading_the(x.name): x.name for x in tables().crosses.values()}


def cross_text(text: str, lang: str) -> str:
    """A chart's incarnation cross (``"Right Angle Cross of the Sphinx (13/7 | 1/2)"``) in
    ``lang``: the angle's pattern with the cross's name, then the gates."""
    if _checked(lang) == SOURCE_LANGUAGE:
        return text
    found = _CROSS.match(text)
    if found is None:
        raise ValueError(f"not an incarnation cross: {text!r}")
    pattern = term("cross title", ANGLE_PATTERNS[found["angle"]], lang)
    name = term("cross", _cross_names()[found["name"]], lang)
    return f"{pattern.format(name=name)} {found['gates']}"


def channel_text(name: str, short: str, lang: str) -> str:
    """A channel as ``channelsLong`` writes it: ``"The Channel of the Prodigal (13-33)"``."""
    if _checked(lang) == SOURCE_LANGUAGE:
        return f"{CHANNEL_PATTERN.format(name=lower_leading_the(name))} ({short})"
    pattern = term("channel title", CHANNEL_PATTERN, lang)
    return f"{pattern.format(name=term('channel', name, lang))} ({short})"


def word_translator(context: str, lang: str) -> Callable[[str], str]:
    """The English -> ``lang`` function of one word field's values: the words of a
    context; circuitries and ``;``-joined centers word by word; crosses by their parts."""
    _checked(lang)
    if context == "cross":
        return lambda text: cross_text(text, lang)
    if context == "circuitry":
        return lambda text: ", ".join(term(context, w, lang) for w in text.split(", ") if w)
    if context == "centers":
        return lambda text: ";".join(term("center", w, lang) for w in text.split(";") if w)
    return lambda text: term(context, text, lang)


def chart_labels(chart: Chart, lang: str) -> dict[str, Any]:
    """The word fields of ``chart.to_v2()`` in ``lang``, under the same keys
    (:data:`WORD_FIELDS`); ``en`` gives them as ``to_v2()`` does."""
    _checked(lang)
    data = chart.to_v2()
    out: dict[str, Any] = {}
    for key, context in WORD_FIELDS.items():
        value = data[key]
        if key == "channelsLong":
            out[key] = [channel_text(c.name, c.short, lang) for c in chart.channels]
        elif key == "incarnationCross":
            out[key] = cross_text(value, lang)
        elif key == "centers":
            out[key] = [term("center", c, lang) for c in value]
        else:
            out[key] = word_translator(context or "", lang)(value)
    return out


def sign_names(lang: str) -> tuple[str, ...]:
    """The twelve zodiac signs' names in ``lang``, Aries to Pisces (the wheel and
    ``bodygraph astro``)."""
    tr = catalog(lang)
    return (tr.pgettext("zodiac sign", "Aries"), tr.pgettext("zodiac sign", "Taurus"),
            tr.pgettext("zodiac sign", "Gemini"), tr.pgettext("zodiac sign", "Cancer"),
            tr.pgettext("zodiac sign", "Leo"), tr.pgettext("zodiac sign", "Virgo"),
            tr.pgettext("zodiac sign", "Libra"), tr.pgettext("zodiac sign", "Scorpio"),
            tr.pgettext("zodiac sign", "Sagittarius"), tr.pgettext("zodiac sign", "Capricorn"),
            tr.pgettext("zodiac sign", "Aquarius"), tr.pgettext("zodiac sign", "Pisces"))


def translate_texts(texts: Sequence[str], context: str, lang: str) -> list[str]:
    """Distinct texts of a column (a categorical's categories) in ``lang``, each once."""
    translate = word_translator(context, lang)
    return [translate(t) for t in texts]
