// The /playground page: one chart from the public API with the key the person pastes.
// No build step; the data is put into the page as text (never as HTML). The answer's JSON
// keeps the contract's order and keys; what a person reads here names the planets and
// lists gates and channels in numeric order. The page's language (its menu, ?lang=) is
// asked of the API too: the table shows the answer's labels, the page's own words come
// from its data attributes (the service's catalogs).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const PROPERTIES = [
    "type", "profile", "strategy", "authority", "definition", "incarnationCross",
    "signature", "notSelfTheme", "centers", "channelsLong", "gates", "birthDateUtc",
  ];
  const LANG = $("result").dataset.lang;
  const WORDS = JSON.parse($("result").dataset.words);
  const ROWS = JSON.parse($("properties").dataset.rows);
  const HEADING = JSON.parse($("activations").dataset.heading);
  const BODIES = JSON.parse($("activations").dataset.bodies);

  // A text of the page with its {fields} filled.
  function say(key, values) {
    return WORDS[key].replace(/\{(\w+)\}/g, (_, name) => String(values[name]));
  }

  // A message with a count in the form of the count: WORDS[key] holds the language's plural
  // forms, WORDS.plural the form of each count from 0 to 199 (the catalog's rule, which
  // repeats from 100 on).
  function counted(key, n) {
    const form = Number(WORDS.plural[n < 200 ? n : 100 + (n % 100)]);
    return WORDS[key][form].replace("{count}", String(n));
  }

  // The numbers in a text, as numbers: "The Channel of the Alpha (7-31)" -> [7, 31].
  function numbers(text) {
    return (String(text).match(/\d+/g) || []).map(Number);
  }

  function numerically(a, b) {
    const x = numbers(a);
    const y = numbers(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] !== y[i]) return x[i] - y[i];
    }
    return x.length - y.length;
  }

  const NUMERIC = new Set(["channelsLong", "gates"]);

  function shown(field, value) {
    if (!Array.isArray(value)) return value;
    const items = NUMERIC.has(field) ? value.slice().sort(numerically) : value;
    return items.join(", ");
  }

  function row(cells, header) {
    const tr = document.createElement("tr");
    cells.forEach((text, i) => {
      const cell = document.createElement(header || i === 0 ? "th" : "td");
      cell.textContent = text;
      tr.appendChild(cell);
    });
    return tr;
  }

  function showChart(body) {
    const data = body.data;
    // The words in the page's language (labels, same keys as data), else data's own.
    const words = Object.assign({}, data, body.labels || {});
    const properties = $("properties");
    properties.replaceChildren();
    PROPERTIES.forEach((field) => {
      if (field in data) {
        properties.appendChild(row([ROWS[field], shown(field, words[field])]));
      }
    });
    const activations = $("activations");
    activations.replaceChildren(row(HEADING, true));
    const design = data.activations.design;
    const personality = data.activations.personality;
    Object.keys(personality).forEach((planet) => {
      activations.appendChild(row([BODIES[planet] || planet, design[planet],
                                   personality[planet]]));
    });
    const image = $("bodygraph");
    image.hidden = false;
    image.src = body.svgRenderUrl;
    $("image-note").textContent = words.type + ", " + data.profile;
    $("result").hidden = false;
  }

  function showError(text) {
    $("error").textContent = text;
    $("error").hidden = false;
  }

  // The page's language as the API's query parameter (none for English: the answer as
  // the contract has it).
  function asked() {
    return LANG === "en" ? "" : "?lang=" + encodeURIComponent(LANG);
  }

  function request() {
    const headers = {
      "Content-Type": "application/json",
      "Authorization": "Bearer " + $("api-key").value.trim(),
    };
    const body = { birthdate: $("birthdate").value, birthtime: $("birthtime").value };
    const lat = $("lat").value.trim();
    const lng = $("lng").value.trim();
    if (lat !== "" && lng !== "") {
      body.lat = Number(lat);
      body.lng = Number(lng);
      return ["v2/visual-charts/coordinates" + asked(), headers, body];
    }
    body.location = $("location").value;
    // The field is there only when the service geocodes with Google (the caller's key).
    const geocodeKey = $("geocode-key") ? $("geocode-key").value.trim() : "";
    if (geocodeKey !== "") headers["HD-Geocode-Key"] = geocodeKey;
    return ["v2/visual-charts" + asked(), headers, body];
  }

  async function submit(event) {
    event.preventDefault();
    $("error").hidden = true;
    $("result").hidden = true;
    $("submit").disabled = true;
    $("status").textContent = say("computing", {});
    const [path, headers, body] = request();
    try {
      const response = await fetch(path, {
        method: "POST", headers: headers, body: JSON.stringify(body),
        credentials: "omit", cache: "no-store",
      });
      let answer = null;
      try { answer = await response.json(); } catch (_) { answer = null; }
      if (response.ok && answer && answer.success) {
        showChart(answer);
      } else if (answer && answer.message) {
        showError(answer.message + (answer.errorCode ? " (" + answer.errorCode + ")" : ""));
      } else {
        showError(say("silent", { status: response.status }));
      }
      // The key's own window (a refused key is counted in an anonymous one: not shown).
      const state = /r=(\d+)/.exec(response.headers.get("ratelimit") || "");
      $("status").textContent =
        response.ok && state ? counted("left", Number(state[1])) : "";
    } catch (_) {
      $("status").textContent = "";
      showError(say("unreachable", {}));
    } finally {
      $("submit").disabled = false;
    }
  }

  $("chart-form").addEventListener("submit", submit);
})();
