"""Places and local time: from a local birth time at a place to the UTC instant.

``coordinates`` (the latitude/longitude check), ``providers`` (the geocoder names) and
``birthtime`` (the date, time and instant texts) are the small modules at the bottom;
``places`` (the geocoders) and ``timezones`` (zones and wall time -> UTC) use them; ``local``
(charts from a local time) uses all of them.
"""
