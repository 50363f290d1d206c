"""Screenshots of the service's pages for the README and the docs: ``/playground`` with a
computed chart and ``/docs`` after one "Try it out".

    .venv/bin/python scripts/screenshots.py [--out docs/images]

Starts the service (uvicorn, this process) on a fresh SQLite database in a temporary
folder with the offline gazetteer, makes a developer account, and drives Debian's
chromium (``/usr/bin/chromium``) through Playwright. The steps a person takes on the pages
(:func:`compute_chart`, :func:`try_it_out`) are the ones the browser test
(``tests/server/test_docs_browser.py``) takes.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
BIRTH = {"birthdate": "1990-07-15", "birthtime": "14:30"}
COORDINATES = {"lat": "52.52", "lng": "13.405"}
TRY_BODY = ('{"birthdate": "1990-07-15", "birthtime": "14:30", '
            '"lat": 52.52, "lng": 13.405}')
TRY_OPERATION = "#operations-v2-v2_charts_coordinates"


def compute_chart(page: Any, base_url: str, key: str, *, location: str = "",
                  geocode_key: str = "", coordinates: dict[str, str] | None = None) -> None:
    """Open /playground, fill the form (coordinates unless ``location`` is given; the
    geocoding key only when given: the field is there only on a service that geocodes
    with Google) and submit; returns once the chart or the error is shown."""
    page.goto(base_url + "/playground")
    page.fill("#api-key", key)
    page.fill("#birthdate", BIRTH["birthdate"])
    page.fill("#birthtime", BIRTH["birthtime"])
    where = coordinates if coordinates is not None else ({} if location else COORDINATES)
    page.fill("#lat", where.get("lat", ""))
    page.fill("#lng", where.get("lng", ""))
    page.fill("#location", location)
    if geocode_key:
        page.fill("#geocode-key", geocode_key)
    page.click("#submit")
    page.wait_for_selector("#result:not([hidden]), #error:not([hidden])")


def try_it_out(page: Any, base_url: str, key: str) -> Any:
    """Open /docs, Authorize with ``key`` (Bearer), run POST /v2/charts/coordinates with
    "Try it out"; returns the operation's locator once its response is shown."""
    page.goto(base_url + "/docs")
    page.click("button.authorize")
    page.fill(".modal-ux input[type=text]", key)
    page.click(".modal-ux button.authorize")
    page.click(".modal-ux button.btn-done")
    operation = page.locator(TRY_OPERATION)
    operation.locator(".opblock-summary").click()
    operation.locator("button.try-out__btn").click()
    operation.locator("textarea.body-param__text").fill(TRY_BODY)
    operation.locator("button.execute").click()
    operation.locator(".live-responses-table .response .response-col_status").first.wait_for()
    return operation


@contextmanager
def _service(folder: Path) -> Iterator[tuple[str, str]]:
    """The service on 127.0.0.1 and the key of a new developer account."""
    import uvicorn

    from bodygraph_server import Settings, create_app
    from bodygraph_server.billing.accounts import Bookkeeper
    from bodygraph_server.store import open_store

    db_url = f"sqlite:///{folder / 'service.sqlite3'}"
    book = Bookkeeper(open_store(db_url))
    key = book.create_account("developer").api_key
    settings = Settings(database_url=db_url, geocoder="offline", warm_up=False)
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1",
                                           port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the service did not start")
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}", key
    finally:
        server.should_exit = True
        thread.join(10)
        book.close()


def main(argv: list[str] | None = None) -> int:
    """Write playground.png and api-docs.png and print what was written."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, _service(Path(tmp)) as (base_url, key), \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        compute_chart(page, base_url, key)
        page.wait_for_function("document.getElementById('bodygraph').naturalWidth > 0")
        page.screenshot(path=str(args.out / "playground.png"), full_page=True)
        operation = try_it_out(page, base_url, key)
        # The operation, the request and the service's 200 answer in view.
        page.set_viewport_size({"width": 1280, "height": 1560})
        operation.locator(".opblock-summary").evaluate(
            "summary => summary.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(args.out / "api-docs.png"))
        browser.close()
    for name in ("playground.png", "api-docs.png"):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
