"""The playground's "Find my birth time" tab: a form whose script, ``static/birth_time.js``,
calls ``POST /v2/rectifications`` and draws the windows on a 24-hour timeline. Every word
of the tab is in :data:`WORDS`, said in the menu's language (catalogs, context ``page``)."""

from __future__ import annotations

import html
import json
from functools import cache

from bodygraph.catalog.translations import (
    Counted,
    counted,
    pgettext,
    plural_forms,
    plural_table,
)

#: How many requests the key has left in the rate limit's window (both tabs).
REQUESTS_LEFT = counted("page", "{count} request left this minute",
                        "{count} requests left this minute", "count")

#: Every word of the tab in English, the script's included (it reads them from
#: ``data-words``), each marked for the catalogs (context ``page``): :func:`words_in`.
WORDS: dict[str, str] = {
    "tab_chart": pgettext("page", "Chart"),
    "tab_birth_time": pgettext("page", "Find my birth time"),
    "intro": pgettext("page", "Don't know your birth time to the minute? Give the day, the "
                      "place and what you know of your chart: the page finds every birth "
                      "time whose chart has all of it (1 credit a search)."),
    "api_key": pgettext("page", "API key"),
    "api_key_placeholder": pgettext("page", "paste your key"),
    "date": pgettext("page", "Date (local)"),
    "to_date": pgettext("page", "Last date of a range (optional, at most 7 days)"),
    "from_time": pgettext("page", "From (local time, optional)"),
    "to_time": pgettext("page", "To (local time, optional)"),
    "where": pgettext("page", "Where: a place, or coordinates"),
    "place": pgettext("page", "Place"),
    "geocode_key": pgettext("page", "Geocoding key"),
    "geocode_key_placeholder": pgettext("page", "for place names"),
    "lat": pgettext("page", "Latitude"),
    "lng": pgettext("page", "Longitude"),
    "known": pgettext("page", "What you know of your chart (at least one)"),
    "any": pgettext("page", "any"),
    "type": pgettext("page", "Type"),
    "profile": pgettext("page", "Profile"),
    "authority": pgettext("page", "Authority"),
    "definition": pgettext("page", "Definition"),
    "strategy": pgettext("page", "Strategy"),
    "cross": pgettext("page", "Incarnation cross (name or four gates)"),
    "centers": pgettext("page", "Defined centers (comma-separated)"),
    "open_centers": pgettext("page", "Open centers (comma-separated)"),
    "channels": pgettext("page", "Channels (e.g. 13-33, 34-57)"),
    "gates": pgettext("page", "Gates (e.g. 38, 10)"),
    "activations": pgettext("page", "Activations (e.g. personality.sun=38.3)"),
    "submit": pgettext("page", "Find the birth times"),
    "searching": pgettext("page", "searching..."),
    "found_none": pgettext("page", "No birth time in the search fits all of it."),
    "timeline": pgettext("page", "The windows on a 24-hour timeline, one row per local "
                         "day"),
    "from": pgettext("page", "From (local)"),
    "to": pgettext("page", "To (local)"),
    "utc": "UTC",  # the same in every language
    "chart": pgettext("page", "Chart"),
    "first_pass": pgettext("page", "first pass"),
    "second_pass": pgettext("page", "second pass"),
    "no_message": pgettext("page", "The service answered {status} without a "
                           "message."),
    "unreachable": pgettext("page", "The service could not be reached."),
    "bad_gates": pgettext("page", "Gates must be whole numbers from 1 to 64, separated by "
                          "commas."),
}


#: The tab's words with a count: the script chooses the form of the count
#: (:func:`counted_words_in`).
COUNTED: dict[str, Counted] = {
    "found": counted("page", "{count} window of birth times fits.",
                     "{count} windows of birth times fit.", "count"),
    "left": REQUESTS_LEFT,
}


def words_in(lang: str) -> dict[str, str]:
    """:data:`WORDS` in ``lang`` (a supported code), through the catalogs."""
    from bodygraph.catalog.translations import catalog

    say = catalog(lang).pgettext
    return {key: say("page", text) for key, text in WORDS.items()}


def counted_words_in(messages: dict[str, Counted], lang: str) -> dict[str, object]:
    """A page script's words with a count in ``lang``: each message's plural forms, and
    under ``plural`` the form of each count (:func:`plural_table`)."""
    return {"plural": plural_table(lang),
            **{key: plural_forms(message, lang) for key, message in messages.items()}}


_PANEL = """
<div id='birth-time-panel' role='tabpanel' aria-labelledby='tab-birth-time' hidden
  data-lang='{lang}' data-words='{words}'>
<p>{intro}</p>
<form id='birth-time-form' autocomplete='off'>
 <label>{api_key} <input id='bt-api-key' type='password' required
   placeholder='{api_key_placeholder}' spellcheck='false'></label>
 <div class='row'>
  <label>{date} <input id='bt-date' type='date' required min='1800-04-04'
    max='2199-12-30'></label>
  <label>{to_date} <input id='bt-to-date' type='date' min='1800-04-04'
    max='2199-12-30'></label>
 </div>
 <div class='row'>
  <label>{from_time} <input id='bt-from-time' type='time'></label>
  <label>{to_time} <input id='bt-to-time' type='time'></label>
 </div>
 <fieldset><legend>{where}</legend>
  <div class='row'>
   <label>{place} <input id='bt-location' placeholder='London, United Kingdom'></label>
   {geocode_key_field}
  </div>
  <div class='row'>
   <label>{lat} <input id='bt-lat' type='number' step='any' min='-90' max='90'
     placeholder='51.5074'></label>
   <label>{lng} <input id='bt-lng' type='number' step='any' min='-180' max='180'
     placeholder='-0.1278'></label>
  </div>
 </fieldset>
 <fieldset><legend>{known}</legend>
  <div class='row'>{choices}</div>
  <div class='row'>
   <label>{cross} <input id='bt-cross' placeholder='Right Angle Cross of the Sphinx'></label>
   <label>{channels} <input id='bt-channels'></label>
  </div>
  <div class='row'>
   <label>{centers} <input id='bt-centers' placeholder='Sacral, Throat'></label>
   <label>{open_centers} <input id='bt-open-centers' placeholder='Head'></label>
  </div>
  <div class='row'>
   <label>{gates} <input id='bt-gates'></label>
   <label>{activations} <input id='bt-activations'></label>
  </div>
 </fieldset>
 <button id='bt-submit' type='submit'>{submit}</button>
 <span id='bt-status' role='status'></span>
</form>
<p id='bt-error' class='error' role='alert' hidden></p>
<section id='bt-result' hidden>
 <p id='bt-summary'></p>
 <figure><svg id='bt-timeline' role='img' aria-label='{timeline}'
   xmlns='http://www.w3.org/2000/svg'></svg></figure>
 <div class='scroll'><table id='bt-windows'></table></div>
</section>
</div>
"""
_GEOCODE_KEY_FIELD = ("<label>{geocode_key} <input id='bt-geocode-key' type='password' "
                      "placeholder='{geocode_key_placeholder}' spellcheck='false'></label>")
TABS = ("<div class='tabs' role='tablist'>"
        "<button type='button' role='tab' id='tab-chart' aria-controls='chart-panel' "
        "aria-selected='true'>{tab_chart}</button>"
        "<button type='button' role='tab' id='tab-birth-time' "
        "aria-controls='birth-time-panel' aria-selected='false'>{tab_birth_time}</button>"
        "</div>")
"""The tab bar of the playground."""


@cache
def _choices() -> dict[str, tuple[str, ...]]:
    """The values of the lists, from the library's tables (the service's ``Constraints``)."""
    from bodygraph.catalog.tables import tables
    from bodygraph.catalog.wording import STRATEGY
    from bodygraph.model.chart import AUTHORITIES, DEFINITIONS, TYPES

    return {"type": tuple(t.value for t in TYPES),
            "profile": tuple(sorted(tables().profile_angles)),
            "authority": tuple(a.value for a in AUTHORITIES),
            "definition": tuple(d.value for d in DEFINITIONS),
            "strategy": tuple(dict.fromkeys(STRATEGY.values()))}


#: The catalogs' context of each list's values (a profile is numbers: none).
_TERMS = {"type": "type", "authority": "authority", "definition": "definition",
          "strategy": "strategy"}


def _select(name: str, words: dict[str, str], lang: str) -> str:
    """A list of the contract's values (sent as they are), each shown in ``lang``."""
    from bodygraph.catalog.translations import term

    context = _TERMS.get(name)
    options = "".join(
        f"<option value='{html.escape(v)}'>"
        f"{html.escape(v if context is None else term(context, v, lang))}</option>"
        for v in _choices()[name])
    return (f"<label>{words[name]} <select id='bt-{name}'><option value=''>"
            f"{words['any']}</option>{options}</select></label>")


def tab_bar(lang: str = "en") -> str:
    """The two tabs in ``lang``: the chart, and finding the birth time."""
    return TABS.format(**{k: html.escape(v) for k, v in words_in(lang).items()})


def birth_time_panel(geocode_key_required: bool, lang: str = "en") -> str:
    """The tab's HTML in ``lang``; a geocoding key's field only when place names need
    one."""
    words = words_in(lang)
    said = {key: html.escape(text, quote=True) for key, text in words.items()}
    field = _GEOCODE_KEY_FIELD.format(**said) if geocode_key_required else ""
    choices = "".join(_select(name, said, lang) for name in _choices())
    return _PANEL.format(**said, geocode_key_field=field, choices=choices, lang=lang,
                         words=html.escape(json.dumps(
                             {**words, **counted_words_in(COUNTED, lang)}), quote=True))
