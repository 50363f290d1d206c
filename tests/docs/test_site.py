"""The documentation site: ``mkdocs build --strict`` (warnings fail) with the Python
reference generated from the docstrings, and the Griffe extension that shows their
reStructuredText habits as Markdown (``scripts/griffe_rst.py``)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _extension() -> ModuleType:
    spec = importlib.util.spec_from_file_location("griffe_rst", REPO / "scripts" / "griffe_rst.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docstrings_read_as_markdown() -> None:
    markdown = _extension().markdown
    assert markdown("A :class:`~bodygraph.columnar.ChartTable`.") == "A `ChartTable`."
    assert markdown("See :func:`bodygraph.calculate`.") == "See `bodygraph.calculate`."
    assert markdown(":mod:`the zones <bodygraph.geo.timezones>`") == "`the zones`"
    assert markdown("Like this::\n\n    x = 1") == "Like this:\n\n    x = 1"
    text = "Text.\n\n>>> 1 + 1\n2\n\nMore."
    assert markdown(text) == "Text.\n\n\n```pycon\n>>> 1 + 1\n2\n```\n\nMore."
    assert markdown(">>> 1\n1").endswith("```pycon\n>>> 1\n1\n```")


@pytest.mark.slow
def test_the_site_builds_strict_with_the_reference(tmp_path: Path) -> None:
    site = tmp_path / "site"
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                            "--site-dir", str(site)], cwd=REPO, capture_output=True,
                           text=True, timeout=120)
    assert build.returncode == 0, build.stderr
    pages = {name: (site / "reference" / name / "index.html").read_text()
             for name in ("library", "render", "relations", "client")}
    for name, anchor in [("library", "bodygraph.calculate"),
                         ("library", "bodygraph.calculate_at_place"),
                         ("render", "bodygraph.render.render_svg"),
                         ("relations", "bodygraph.relations.transit.transit"),
                         ("relations", "bodygraph.relations.TransitTable"),
                         ("client", "bodygraph_client.Client")]:
        assert f'id="{anchor}"' in pages[name], (name, anchor)
    for text in pages.values():
        assert ":class:`" not in text and ":func:`" not in text
    assert "language-pycon" in pages["library"]
    for section in ("tutorial", "how-to", "reference", "explanation"):
        assert (site / section / "index.html").is_file()
    assert "cdnjs" not in (site / "index.html").read_text()  # the site works offline
