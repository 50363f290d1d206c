"""The ``/playground`` page: a chart form whose script (``static/playground.js``) calls the
public visual-chart operations, and the "Find my birth time" tab (:mod:`.birth_time`); its
words in the language of its menu (``?lang=``, the catalogs' context ``page``)."""

from __future__ import annotations

import html
import json
from collections.abc import Callable

from bodygraph_server.resources.pages.birth_time import (
    REQUESTS_LEFT,
    birth_time_panel,
    counted_words_in,
    tab_bar,
)
from bodygraph_server.resources.pages.docs_page import STATIC_PATH, nav_bar

#: The menu's languages by their own names (the codes of ``bodygraph.languages()``).
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English", "de": "Deutsch", "nl": "Nederlands", "es": "Español",
    "fr": "Français", "pt": "Português (Brasil)", "it": "Italiano", "ru": "Русский",
    "ja": "日本語", "zh-Hans": "简体中文",
}
Say = Callable[[str, str], str]


def _attribute(value: object) -> str:
    """A JSON value as an HTML attribute's text (quoted)."""
    return "'" + html.escape(json.dumps(value, ensure_ascii=False), quote=True) + "'"


def _form(pgettext: Say, geocode_key_required: bool) -> str:
    """The form, with a geocoding key's field only when place names need one."""
    w = {key: html.escape(text, quote=True) for key, text in {
        "key": pgettext("page", "API key"), "paste": pgettext("page", "paste your key"),
        "date": pgettext("page", "Birth date"), "time": pgettext("page", "Birth time (local)"),
        "where": pgettext("page", "Where: a place, or coordinates"),
        "place": pgettext("page", "Place"), "lat": pgettext("page", "Latitude"),
        "lng": pgettext("page", "Longitude"), "compute": pgettext("page", "Compute the chart"),
        "geocoding": pgettext("page", "Geocoding key"),
        "for places": pgettext("page", "for place names"),
        "hint": pgettext("page", "With both coordinates the place is not used."),
        "offline": pgettext("page", "Place names are looked up in this service's own "
                            "gazetteer: no geocoding key is needed."),
    }.items()}
    geocode_key = (f"<label>{w['geocoding']} <input id='geocode-key' name='geocode-key' "
                   f"type='password' placeholder='{w['for places']}' spellcheck='false'>"
                   "</label>" if geocode_key_required else "")
    hint = w["hint"] if geocode_key_required else f"{w['hint']} {w['offline']}"
    return f"""
<form id='chart-form' autocomplete='off'>
 <label>{w['key']} <input id='api-key' name='api-key' type='password' required
   placeholder='{w['paste']}' spellcheck='false'></label>
 <div class='row'>
  <label>{w['date']} <input id='birthdate' name='birthdate' type='date' required
    min='1800-04-01' max='2199-12-31'></label>
  <label>{w['time']} <input id='birthtime' name='birthtime' type='time' required></label>
 </div>
 <fieldset><legend>{w['where']}</legend>
  <div class='row'>
   <label>{w['place']} <input id='location' name='location'
     placeholder='Berlin, Germany'></label>
   {geocode_key}
  </div>
  <div class='row'>
   <label>{w['lat']} <input id='lat' name='lat' type='number' step='any' min='-90'
     max='90' placeholder='52.52'></label>
   <label>{w['lng']} <input id='lng' name='lng' type='number' step='any' min='-180'
     max='180' placeholder='13.405'></label>
  </div>
  <p class='hint'>{hint}</p>
 </fieldset>
 <button id='submit' type='submit'>{w['compute']}</button>
 <span id='status' role='status'></span>
</form>
"""


def language_menu(lang: str, pgettext: Say) -> str:
    """The language menu of a page: a GET form of ``lang`` (``static/languages.js``
    submits it on a change)."""
    options = "".join(
        f"<option value='{code}' lang='{code}'{' selected' if code == lang else ''}>"
        f"{html.escape(name)}</option>" for code, name in LANGUAGE_NAMES.items())
    label = html.escape(pgettext("page", "Language"))
    return (f"<form id='lang-form' method='get' class='languages'><label>"
            f"{label} <select id='lang' name='lang'>"
            f"{options}</select></label><noscript><button type='submit'>OK</button>"
            "</noscript></form>")


def _result(pgettext: Say, lang: str) -> str:
    """The answer's part, with the words its script writes as data attributes."""
    from bodygraph.catalog.translations import body_name, term
    from bodygraph.model.chart import BODIES

    rows = {
        "type": pgettext("page", "Type"), "profile": pgettext("page", "Profile"),
        "strategy": pgettext("page", "Strategy"), "authority": pgettext("page", "Authority"),
        "definition": pgettext("page", "Definition"),
        "incarnationCross": pgettext("page", "Incarnation cross"),
        "signature": pgettext("page", "Signature"),
        "notSelfTheme": pgettext("page", "Not-self theme"),
        "centers": pgettext("page", "Defined centers"),
        "channelsLong": pgettext("page", "Channels"), "gates": pgettext("page", "Gates"),
        "birthDateUtc": pgettext("page", "Birth (UTC)"),
    }
    heading = [pgettext("page", "Planet"), term("side", "Design", lang),
               term("side", "Personality", lang)]
    bodies = {b.value: body_name(b, lang) for b in BODIES}
    words: dict[str, object] = {
        **counted_words_in({"left": REQUESTS_LEFT}, lang),
        "computing": pgettext("page", "computing..."),
        "silent": pgettext("page", "The service answered {status} without a message."),
        "unreachable": pgettext("page", "The service could not be reached."),
    }
    chart = html.escape(pgettext("page", "Chart"))
    activations = html.escape(pgettext("page", "Activations"))
    alt = html.escape(pgettext("page", "the rendered bodygraph"), quote=True)
    return (f"<p id='error' role='alert' hidden></p>"
            f"<section id='result' hidden data-lang='{lang}' data-words={_attribute(words)}>"
            f"<div class='columns'><div><h2>{chart}</h2>"
            f"<table id='properties' data-rows={_attribute(rows)}></table>"
            f"<h2>{activations}</h2>"
            f"<table id='activations' data-heading={_attribute(heading)} "
            f"data-bodies={_attribute(bodies)}></table></div>"
            f"<figure><img id='bodygraph' alt='{alt}'>"
            "<figcaption id='image-note'></figcaption></figure></div></section>")


def playground_page(title: str, geocode_key_required: bool = True, lang: str = "en") -> str:
    """The HTML of ``/playground`` in ``lang`` (a supported code); without
    ``geocode_key_required`` (the offline gazetteer) it asks for no geocoding key. Its
    script and style are static files."""
    from bodygraph.catalog.translations import catalog

    pgettext: Say = catalog(lang).pgettext
    name = html.escape(title)
    heading = html.escape(pgettext("page", "Playground"))
    return "".join([
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{name}: {heading}</title>",
        f"<link rel='stylesheet' href='{STATIC_PATH[1:]}/pages.css'>",
        f"<link rel='icon' type='image/svg+xml' href='{STATIC_PATH[1:]}/favicon.svg'>",
        "</head><body>",
        nav_bar(title, lang),
        f"<main class='playground'>{language_menu(lang, pgettext)}",
        f"<h1>{heading}</h1><p>",
        html.escape(pgettext("page", "Compute a chart with your API key (each chart costs 1 "
                             "credit). The page calls the public API of this service only.")),
        "</p>",
        tab_bar(lang),
        "<div id='chart-panel' role='tabpanel' aria-labelledby='tab-chart'>",
        _form(pgettext, geocode_key_required),
        _result(pgettext, lang),
        "</div>",
        birth_time_panel(geocode_key_required, lang),
        "</main>",
        f"<script src='{STATIC_PATH[1:]}/languages.js'></script>",
        f"<script src='{STATIC_PATH[1:]}/playground.js'></script>",
        f"<script src='{STATIC_PATH[1:]}/birth_time.js'></script>",
        "</body></html>",
    ])
