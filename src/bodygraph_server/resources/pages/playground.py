"""The ``/playground`` page: a form (API key, birth, place or coordinates) whose script,
``static/playground.js``, calls the public visual-chart operations and shows the answer;
and the "Find my birth time" tab (:mod:`~bodygraph_server.resources.pages.birth_time`)."""

from __future__ import annotations

import html

from bodygraph_server.resources.pages.birth_time import birth_time_panel, tab_bar
from bodygraph_server.resources.pages.docs_page import STATIC_PATH, nav_bar

_FORM = """
<form id='chart-form' autocomplete='off'>
 <label>API key <input id='api-key' name='api-key' type='password' required
   placeholder='paste your key' spellcheck='false'></label>
 <div class='row'>
  <label>Birth date <input id='birthdate' name='birthdate' type='date' required
    min='1800-04-01' max='2199-12-31'></label>
  <label>Birth time (local) <input id='birthtime' name='birthtime' type='time'
    required></label>
 </div>
 <fieldset><legend>Where: a place, or coordinates</legend>
  <div class='row'>
   <label>Place <input id='location' name='location' placeholder='Berlin, Germany'></label>
   {geocode_key}
  </div>
  <div class='row'>
   <label>Latitude <input id='lat' name='lat' type='number' step='any' min='-90'
     max='90' placeholder='52.52'></label>
   <label>Longitude <input id='lng' name='lng' type='number' step='any' min='-180'
     max='180' placeholder='13.405'></label>
  </div>
  <p class='hint'>With both coordinates the place is not used.{places_hint}</p>
 </fieldset>
 <button id='submit' type='submit'>Compute the chart</button>
 <span id='status' role='status'></span>
</form>
<p id='error' role='alert' hidden></p>
<section id='result' hidden>
 <div class='columns'>
  <div><h2>Chart</h2><table id='properties'></table>
   <h2>Activations</h2><table id='activations'></table></div>
  <figure><img id='bodygraph' alt='the rendered bodygraph'>
   <figcaption id='image-note'></figcaption></figure>
 </div>
</section>
"""


#: The geocoding key's field, on a service that geocodes with Google.
_GEOCODE_KEY_FIELD = """<label>Geocoding key <input id='geocode-key' name='geocode-key'
     type='password' placeholder='for place names' spellcheck='false'></label>"""
_OFFLINE_HINT = (" Place names are looked up in this service's own gazetteer: no "
                 "geocoding key is needed.")


def _form(geocode_key_required: bool) -> str:
    """The form, with a geocoding key's field only when place names need one."""
    needed = geocode_key_required
    return (_FORM.replace("{geocode_key}", _GEOCODE_KEY_FIELD if needed else "")
            .replace("{places_hint}", "" if needed else _OFFLINE_HINT))


def playground_page(title: str, geocode_key_required: bool = True) -> str:
    """The HTML of ``/playground``; without ``geocode_key_required`` (the offline
    gazetteer) it asks for no geocoding key. Its script and style are static files."""
    name = html.escape(title)
    return "".join([
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{name}: playground</title>",
        f"<link rel='stylesheet' href='{STATIC_PATH[1:]}/pages.css'>",
        f"<link rel='icon' type='image/svg+xml' href='{STATIC_PATH[1:]}/favicon.svg'>",
        "</head><body>",
        nav_bar(title),
        "<main class='playground'><h1>Playground</h1><p>Compute a chart with your API key "
        "(each chart costs 1 credit). The page calls the public API of this service "
        "only.</p>",
        tab_bar(),
        "<div id='chart-panel' role='tabpanel' aria-labelledby='tab-chart'>",
        _form(geocode_key_required),
        "</div>",
        birth_time_panel(geocode_key_required),
        "</main>",
        f"<script src='{STATIC_PATH[1:]}/playground.js'></script>",
        f"<script src='{STATIC_PATH[1:]}/birth_time.js'></script>",
        "</body></html>",
    ])
