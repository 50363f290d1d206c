"""No body sent to the astrology extensions gives a 5xx (in process, as test_no_5xx does
for the contract's endpoints): every refusal is the v2 envelope with an errorCode, and
nothing is charged for it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .test_no_5xx import Harness, field_values, harness, json_values

__all__ = ["harness"]  # the fixture, shared with test_no_5xx

PATHS = ["/v2/hologenetic-profiles", "/v2/hologenetic-profiles/coordinates",
         "/v2/astro/coordinates", "/v2/wheel-charts/coordinates"]
options = st.one_of(field_values, st.sampled_from(
    ["placidus", "whole-sign", "koch", "dark", "light", "neon", "2027-01-01T00:00:00Z",
     "2027-02-30T00:00:00Z", "2500-01-01T00:00:00Z", "1700-01-01T00:00:00Z"]))
lats = st.one_of(field_values, st.sampled_from([90, -90, 90.0, 66.6, 80.0, -80.0]))
bodies = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"birthdate": st.sampled_from(["1990-07-15", "1800-04-03", "2199-12-31"]),
         "birthtime": st.sampled_from(["14:30", "00:00", "23:59"]),
         "lat": lats, "lng": st.one_of(st.floats(-180, 180), field_values)},
        optional={"houses": options, "transitAt": options, "theme": options,
                  "location": field_values},
    ),
)


@pytest.mark.timeout(300)
@given(path=st.sampled_from(PATHS), body=bodies)
@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_no_input_gives_a_server_error(harness: Harness, path: str, body: Any) -> None:
    response = harness.post(path, json.dumps(body).encode(),
                            {"Content-Type": "application/json", "HD-Geocode-Key": "g"})
    assert response.status_code < 500, response.text
    assert "Traceback" not in response.text
    payload = response.json()
    if response.status_code != 200:
        assert payload["success"] is False and payload["data"] is None
        assert payload["errorCode"]
