"""Messages with a count: plural entries of the catalogs, each language's Plural-Forms rule,
every form filled, and the form of the count chosen in the command line's, the service's
and the MCP tools' words (expected words read from the catalogs)."""

from __future__ import annotations

import pytest

from bodygraph.catalog.translations import LANGUAGES, SOURCE_LANGUAGE, catalog, npgettext

TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]

#: gettext's (CLDR's integer) rules: the form each count takes.
RULES = {
    "de": lambda n: int(n != 1), "nl": lambda n: int(n != 1), "es": lambda n: int(n != 1),
    "it": lambda n: int(n != 1), "pt": lambda n: int(n != 1), "fr": lambda n: int(n > 1),
    "ru": lambda n: (0 if n % 10 == 1 and n % 100 != 11 else
                     1 if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else 2),
    "ja": lambda n: 0, "zh-Hans": lambda n: 0,
}
COUNTS = (0, 1, 2, 3, 4, 5, 11, 12, 14, 21, 22, 25, 101, 111, 1_000_000)


def _forms(lang: str, context: str, singular: str) -> tuple[str, ...]:
    from bodygraph.i18n.template import read_catalog

    message = read_catalog(lang).get(singular, context=context)
    assert message is not None and isinstance(message.string, tuple)
    return tuple(message.string)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_each_catalog_s_plural_rule_is_gettext_s(lang: str) -> None:
    from bodygraph.i18n.template import read_catalog

    parsed = read_catalog(lang)
    assert parsed.num_plurals == len({RULES[lang](n) for n in COUNTS})
    forms = _forms(lang, "cli", "{count} row")
    for n in COUNTS:
        assert catalog(lang).npgettext("cli", "{count} row", "{count} rows", n) == forms[
            RULES[lang](n)], (lang, n)


def test_russian_counts_take_their_three_forms() -> None:
    one, few, many = _forms("ru", "cli", "{count} row")
    assert (one, few, many) == ("{count} строка", "{count} строки", "{count} строк")
    said = {n: catalog("ru").npgettext("cli", "{count} row", "{count} rows", n).format(count=n)
            for n in (1, 2, 5, 11, 21)}
    assert said == {1: "1 строка", 2: "2 строки", 5: "5 строк", 11: "11 строк",
                    21: "21 строка"}


def test_the_template_holds_the_count_messages_as_plural_entries() -> None:
    from .extracted import messages

    plurals = {(t.context, t.english): t.plural for t in messages() if t.plural}
    assert plurals[("cli", "{count} row")] == "{count} rows"
    assert plurals[("cli", "{count} chart")] == "{count} charts"
    assert plurals[("error", "{month} has {days} day in {year}")] == (
        "{month} has {days} days in {year}")
    assert plurals[("service error", "a job takes at most {most} birth")] == (
        "a job takes at most {most} births")
    assert plurals[("mcp", "{count} ingress from {first} to {last}")] == (
        "{count} ingresses from {first} to {last}")
    assert len(plurals) >= 20


def test_the_check_finds_a_plural_form_missing_or_broken() -> None:
    from bodygraph.i18n.template import catalog_problems, read_catalog

    from .extracted import all_messages

    parsed = read_catalog("ru")
    message = parsed.get("{count} row", context="cli")
    message.string = ("{count} строка", "{count} строки", "")
    parsed.get("{count} chart", context="cli").string = ("{count} карта", "карты", "{count} карт")
    assert catalog_problems(parsed, all_messages()) == [
        "[cli] '{count} row': 2 of 3 plural forms translated",
        "[cli] '{count} chart': plural form 1 has placeholders set() instead of {'count'}",
    ]


def test_english_counts_are_singular_for_one() -> None:
    from bodygraph.catalog.batch_lines import MORE_BAD_ROWS, ROWS

    assert npgettext("cli", "{count} row", "{count} rows", 1) == "{count} row"
    assert ROWS.english(1).format(count=1) == "1 row"
    assert ROWS.english(0).format(count=0) == "0 rows"
    assert MORE_BAD_ROWS.english(2).format(count=2) == (
        "... and 2 more bad rows (see the error column)")


@pytest.mark.parametrize("n", [1, 2, 5, 11, 21])
def test_a_library_message_is_said_in_the_form_of_its_count(n: int) -> None:
    from bodygraph.catalog.batch_lines import MORE_BAD_ROWS
    from bodygraph.cli.said import said

    english = MORE_BAD_ROWS.english(n).format(count=n)
    form = _forms("ru", "error", MORE_BAD_ROWS.singular)[RULES["ru"](n)]
    assert said(english, "ru") == form.format(count=n)
    assert said(english, "fr") == _forms("fr", "error", MORE_BAD_ROWS.singular)[
        RULES["fr"](n)].format(count=n)


def test_a_service_message_is_said_in_the_form_of_its_count() -> None:
    from bodygraph_server.http.error_words import translated

    forms = _forms("ru", "service error", "Request body exceeds {limit} byte")
    # 1 048 576 ends in 6: the third form; the number grouped as Russian writes it
    assert translated("Request body exceeds 1,048,576 bytes", "ru") == forms[2].format(
        limit="1\u00a0048\u00a0576")
    assert translated("Request body exceeds 1,048,572 bytes", "ru") == forms[1].format(
        limit="1\u00a0048\u00a0572")


def test_the_days_of_a_month_are_counted_in_russian() -> None:
    from bodygraph.catalog.said import said

    forms = _forms("ru", "error", "{month} has {days} day in {year}")
    assert said("February has 29 days in 2024", "ru") == forms[2].format(
        month="February", days=29, year=2024).replace("February", said("February", "ru"))
    assert "31 день" in said("January has 31 days in 2024", "ru")


@pytest.mark.parametrize("lang", ["en", "ru", "ja"])
def test_mcp_counts_take_the_form_of_their_count(lang: str) -> None:
    from bodygraph_mcp.summaries import calendar_summary

    said = calendar_summary([], "2024-01-01", "2024-01-02", lang)
    expected = catalog(lang).npgettext(
        "mcp", "{count} ingress from {first} to {last}",
        "{count} ingresses from {first} to {last}", 0).format(
        count=0, first="2024-01-01", last="2024-01-02")
    assert said == expected + "."
    if lang == "en":
        assert said == "0 ingresses from 2024-01-01 to 2024-01-02."


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_page_script_s_table_gives_every_count_its_form(lang: str) -> None:
    """The pages' scripts read ``plural[n < 200 ? n : 100 + n % 100]``: the catalog's rule
    for every count."""
    from bodygraph.catalog.translations import plural_index, plural_table

    table = plural_table(lang)
    for n in range(5000):
        assert int(table[n if n < 200 else 100 + n % 100]) == plural_index(lang, n), n


def test_the_page_words_with_a_count_are_the_catalog_s_forms() -> None:
    from bodygraph_server.resources.pages.birth_time import COUNTED, counted_words_in

    words = counted_words_in(COUNTED, "ru")
    assert words["left"] == list(_forms("ru", "page", "{count} request left this minute"))
    assert [words["plural"][n] for n in (1, 2, 5, 11, 21)] == ["0", "1", "2", "2", "0"]
    english = counted_words_in(COUNTED, "en")
    assert english["found"] == ["{count} window of birth times fits.",
                                "{count} windows of birth times fit."]
    assert counted_words_in(COUNTED, "ja")["left"] == list(
        _forms("ja", "page", "{count} request left this minute"))


@pytest.mark.parametrize(("hours", "form"), [(49, 2), (72, 1), (-1, 0), (0, 2)])
def test_the_hours_of_a_window_are_counted_in_russian(hours: int, form: int) -> None:
    from bodygraph.catalog.said import said

    singular = ("the window must be more than 0 and at most 48 hours either side, not "
                "{hours} hour")
    english = npgettext("error", singular, singular + "s", abs(hours)).format(hours=hours)
    assert said(english, "ru") == _forms("ru", "error", singular)[form].format(hours=hours)
