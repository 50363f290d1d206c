"""The playground's "Find my birth time" tab: a form (what is known of the chart, the day,
the place) whose script, ``static/birth_time.js``, calls ``POST /v2/rectifications`` and
draws the windows on a 24-hour timeline. Every word of the tab is in :data:`WORDS`."""

from __future__ import annotations

import html
import json
from functools import cache

#: Every word of the tab, the script's included (it reads them from ``data-words``): one
#: place for the translations.
WORDS: dict[str, str] = {
    "tab_chart": "Chart",
    "tab_birth_time": "Find my birth time",
    "intro": "Don't know your birth time to the minute? Give the day, the place and what "
             "you know of your chart: the page finds every birth time whose chart has all "
             "of it (1 credit a search).",
    "api_key": "API key",
    "api_key_placeholder": "paste your key",
    "date": "Date (local)",
    "to_date": "Last date of a range (optional, at most 7 days)",
    "from_time": "From (local time, optional)",
    "to_time": "To (local time, optional)",
    "where": "Where: a place, or coordinates",
    "place": "Place",
    "geocode_key": "Geocoding key",
    "geocode_key_placeholder": "for place names",
    "lat": "Latitude",
    "lng": "Longitude",
    "known": "What you know of your chart (at least one)",
    "any": "any",
    "type": "Type",
    "profile": "Profile",
    "authority": "Authority",
    "definition": "Definition",
    "strategy": "Strategy",
    "cross": "Incarnation cross (name or four gates)",
    "centers": "Defined centers (comma-separated)",
    "open_centers": "Open centers (comma-separated)",
    "channels": "Channels (e.g. 13-33, 34-57)",
    "gates": "Gates (e.g. 38, 10)",
    "activations": "Activations (e.g. personality.sun=38.3)",
    "submit": "Find the birth times",
    "searching": "searching...",
    "found_one": "1 window of birth times fits.",
    "found_many": "{count} windows of birth times fit.",
    "found_none": "No birth time in the search fits all of it.",
    "timeline": "The windows on a 24-hour timeline, one row per local day",
    "from": "From (local)",
    "to": "To (local)",
    "utc": "UTC",
    "chart": "Chart",
    "first_pass": "first pass",
    "second_pass": "second pass",
    "left": "{count} requests left this minute",
    "no_message": "The service answered {status} without a message.",
    "unreachable": "The service could not be reached.",
    "bad_gates": "Gates must be whole numbers from 1 to 64, separated by commas.",
}

_PANEL = """
<div id='birth-time-panel' role='tabpanel' aria-labelledby='tab-birth-time' hidden
  data-words='{words}'>
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


def _select(name: str, words: dict[str, str]) -> str:
    options = "".join(f"<option value='{html.escape(v)}'>{html.escape(v)}</option>"
                      for v in _choices()[name])
    return (f"<label>{words[name]} <select id='bt-{name}'><option value=''>"
            f"{words['any']}</option>{options}</select></label>")


def tab_bar(words: dict[str, str] = WORDS) -> str:
    """The two tabs: the chart, and finding the birth time."""
    return TABS.format(**{k: html.escape(v) for k, v in words.items()})


def birth_time_panel(geocode_key_required: bool, words: dict[str, str] = WORDS) -> str:
    """The tab's HTML; a geocoding key's field only when place names need one."""
    said = {key: html.escape(text, quote=True) for key, text in words.items()}
    field = _GEOCODE_KEY_FIELD.format(**said) if geocode_key_required else ""
    choices = "".join(_select(name, said) for name in _choices())
    return _PANEL.format(**said, geocode_key_field=field, choices=choices,
                         words=html.escape(json.dumps(words), quote=True))
