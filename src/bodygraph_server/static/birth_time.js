// The playground's tabs and its "Find my birth time" tab: POST /v2/rectifications with the
// key the person pastes, and the windows on a 24-hour timeline (an SVG, one row per local
// day) and in a table. Every word comes from the page (data-words: one place for the
// translations, in the menu's language); the search asks the API in that language too
// (?lang=) and shows the chart words of its labels. The data is put into the page as text,
// never as HTML.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const panel = $("birth-time-panel");
  const WORDS = JSON.parse(panel.dataset.words);
  // A message with a count in the form of the count: WORDS[key] holds the language's plural
  // forms, WORDS.plural the form of each count from 0 to 199 (the catalog's rule, which
  // repeats from 100 on).
  function counted(key, n) {
    const form = Number(WORDS.plural[n < 200 ? n : 100 + (n % 100)]);
    return WORDS[key][form].replace("{count}", String(n));
  }
  const LANG = panel.dataset.lang;
  let LABELS = [];  // each window's chart words in the page's language (the answer's labels)
  const SVG = "http://www.w3.org/2000/svg";
  const DAY = 86400;
  const CHOICES = ["type", "profile", "authority", "definition", "strategy"];
  const LISTS = [["centers", "bt-centers"], ["openCenters", "bt-open-centers"],
                 ["channels", "bt-channels"], ["activations", "bt-activations"]];

  // -- the tabs: the chart and the birth time; the key typed in one is offered in the other
  function choose(tab) {
    const birthTime = tab === "birth-time";
    $("tab-chart").setAttribute("aria-selected", String(!birthTime));
    $("tab-birth-time").setAttribute("aria-selected", String(birthTime));
    $("chart-panel").hidden = birthTime;
    panel.hidden = !birthTime;
    const [from, to] = birthTime ? ["api-key", "bt-api-key"] : ["bt-api-key", "api-key"];
    if ($(to).value === "") $(to).value = $(from).value;
  }

  // -- the request
  function items(id) {
    return $(id).value.split(",").map((item) => item.trim()).filter((item) => item !== "");
  }

  function constraints() {
    const known = {};
    CHOICES.forEach((name) => {
      const value = $("bt-" + name).value;
      if (value !== "") known[name] = value;
    });
    const cross = $("bt-cross").value.trim();
    if (cross !== "") known.cross = cross;
    LISTS.forEach(([name, id]) => {
      const values = items(id);
      if (values.length) known[name] = values;
    });
    const gates = items("bt-gates");
    if (gates.some((gate) => !/^\d{1,2}$/.test(gate))) throw new Error(WORDS.bad_gates);
    if (gates.length) known.gates = gates.map(Number);
    return known;
  }

  function request() {
    const headers = {
      "Content-Type": "application/json",
      "Authorization": "Bearer " + $("bt-api-key").value.trim(),
    };
    const body = { date: $("bt-date").value, constraints: constraints() };
    [["toDate", "bt-to-date"], ["fromTime", "bt-from-time"], ["toTime", "bt-to-time"]]
      .forEach(([name, id]) => { if ($(id).value !== "") body[name] = $(id).value; });
    const lat = $("bt-lat").value.trim();
    const lng = $("bt-lng").value.trim();
    if (lat !== "" && lng !== "") {
      body.lat = Number(lat);
      body.lng = Number(lng);
    } else {
      body.location = $("bt-location").value;
      const geocodeKey = $("bt-geocode-key") ? $("bt-geocode-key").value.trim() : "";
      if (geocodeKey !== "") headers["HD-Geocode-Key"] = geocodeKey;
    }
    return [headers, body];
  }

  // -- the timeline
  // "1980-01-03T06:12:44+00:00" -> the local day and the seconds since its midnight
  function wall(text) {
    const [h, m, s] = text.slice(11, 19).split(":").map(Number);
    return { day: text.slice(0, 10), seconds: h * 3600 + m * 60 + s };
  }

  function nextDay(day) {
    return new Date(Date.parse(day + "T00:00:00Z") + DAY * 1000).toISOString().slice(0, 10);
  }

  // The local days of the search, first to last (a search that ends at a midnight ends
  // the day before).
  function searchedDays(start, end) {
    const previous = new Date(Date.parse(end.day + "T00:00:00Z") - DAY * 1000)
      .toISOString().slice(0, 10);
    const last = end.seconds === 0 && end.day !== start.day ? previous : end.day;
    const days = [start.day];
    while (days[days.length - 1] < last) days.push(nextDay(days[days.length - 1]));
    return days;
  }

  function shape(name, attributes, parent) {
    const node = document.createElementNS(SVG, name);
    Object.entries(attributes).forEach(([key, value]) => node.setAttribute(key, value));
    parent.appendChild(node);
    return node;
  }

  function clock(seconds) {
    const h = Math.floor(seconds / 3600);
    const m = Math.floor(seconds % 3600 / 60);
    return String(h).padStart(2, "0") + ":" + String(m).padStart(2, "0");
  }

  function draw(data) {
    const svg = $("bt-timeline");
    svg.replaceChildren();
    const left = 82, width = 640, top = 18, height = 22, gap = 8;
    const x = (seconds) => left + width * seconds / DAY;
    const start = wall(data.searched.fromLocal);
    const end = wall(data.searched.toLocal);
    const days = searchedDays(start, end);
    const total = top + days.length * (height + gap);
    svg.setAttribute("viewBox", "0 0 " + (left + width + 24) + " " + total);
    const title = shape("title", {}, svg);
    title.textContent = WORDS.timeline;
    days.forEach((day, row) => {
      const y = top + row * (height + gap);
      shape("text", { x: 0, y: y + height * 0.7 }, svg).textContent = day;
      shape("rect", { class: "day", x: x(0), y: y, width: width, height: height }, svg);
      const from = day === start.day ? start.seconds : 0;
      const to = day === end.day ? end.seconds : DAY;
      shape("rect", { class: "searched", x: x(from), y: y, width: x(to) - x(from),
                      height: height }, svg);
      data.windows.forEach((found, i) => {
        const a = wall(found.fromLocal);
        const b = wall(found.toLocal);
        if (day < a.day || day > b.day) return;
        let first = day === a.day ? a.seconds : 0;
        let last = day === b.day ? b.seconds : DAY;
        if (last === 0 && day !== a.day) return;  // it ended at this day's midnight
        if (last < first) [first, last] = [last, first];  // across a fold: the wall clock
        const bar = shape("rect", { class: "window", x: x(first), y: y + 3,
                                    width: Math.max(1, x(last) - x(first)), height: height - 6,
                                    "data-window": String(i) }, svg);
        shape("title", {}, bar).textContent =
          local(found.fromLocal, found.fromPass) + " - " +
          local(found.toLocal, found.toPass) + ": " + chartText(found.chart, i);
      });
    });
    for (let hour = 0; hour <= 24; hour += 3) {
      shape("line", { class: "tick", x1: x(hour * 3600), x2: x(hour * 3600), y1: top - 4,
                      y2: total - gap }, svg);
      shape("text", { x: x(hour * 3600), y: top - 7, "text-anchor": "middle" }, svg)
        .textContent = clock(hour * 3600);
    }
  }

  // -- the table
  function local(text, pass) {
    const mark = pass ? " (" + WORDS[pass + "_pass"] + ")" : "";
    return text.slice(0, 10) + " " + text.slice(11, 19) + " " + text.slice(19) + mark;
  }

  function chartText(chart, i) {
    const words = Object.assign({}, chart, (LABELS[i] || {}).chart || {});
    return [chart.profile + " " + words.type, words.authority, words.definition,
            words.incarnationCross].join(", ");
  }

  function row(cells, header) {
    const tr = document.createElement("tr");
    cells.forEach((text) => {
      const cell = document.createElement(header ? "th" : "td");
      cell.textContent = text;
      tr.appendChild(cell);
    });
    return tr;
  }

  function show(data) {
    const count = data.windows.length;
    $("bt-summary").textContent = count === 0 ? WORDS.found_none : counted("found", count);
    draw(data);
    const table = $("bt-windows");
    table.replaceChildren(row([WORDS.from, WORDS.to, WORDS.utc, WORDS.chart], true));
    data.windows.forEach((found, i) => {
      table.appendChild(row([local(found.fromLocal, found.fromPass),
                             local(found.toLocal, found.toPass),
                             found.from.slice(11, 19) + " - " + found.to.slice(11, 19),
                             chartText(found.chart, i)]));
    });
    table.hidden = count === 0;
    $("bt-result").hidden = false;
  }

  function showError(text) {
    $("bt-error").textContent = text;
    $("bt-error").hidden = false;
  }

  async function submit(event) {
    event.preventDefault();
    $("bt-error").hidden = true;
    $("bt-result").hidden = true;
    let headers, body;
    try {
      [headers, body] = request();
    } catch (error) {
      showError(error.message);
      return;
    }
    $("bt-submit").disabled = true;
    $("bt-status").textContent = WORDS.searching;
    try {
      const query = LANG && LANG !== "en" ? "?lang=" + encodeURIComponent(LANG) : "";
      const response = await fetch("v2/rectifications" + query, {
        method: "POST", headers: headers, body: JSON.stringify(body),
        credentials: "omit", cache: "no-store",
      });
      let answer = null;
      try { answer = await response.json(); } catch (_) { answer = null; }
      if (response.ok && answer && answer.success) {
        LABELS = (answer.labels && answer.labels.windows) || [];
        show(answer.data);
      } else if (answer && answer.message) {
        showError(answer.message + (answer.errorCode ? " (" + answer.errorCode + ")" : ""));
      } else {
        showError(WORDS.no_message.replace("{status}", String(response.status)));
      }
      const state = /r=(\d+)/.exec(response.headers.get("ratelimit") || "");
      $("bt-status").textContent =
        response.ok && state ? counted("left", Number(state[1])) : "";
    } catch (_) {
      $("bt-status").textContent = "";
      showError(WORDS.unreachable);
    } finally {
      $("bt-submit").disabled = false;
    }
  }

  $("tab-chart").addEventListener("click", () => choose("chart"));
  $("tab-birth-time").addEventListener("click", () => choose("birth-time"));
  $("birth-time-form").addEventListener("submit", submit);
})();
