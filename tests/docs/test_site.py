"""The documentation site: ``mkdocs build --strict`` (warnings fail) with the Python
reference generated from the docstrings, and the Griffe extension that shows their
reStructuredText habits as Markdown (``scripts/griffe_rst.py``)."""

from __future__ import annotations

import importlib.util
import re
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
    # Code blocks coloured at build time by Pygments, with their colours linked.
    tutorial = (site / "tutorial" / "index.html").read_text()
    assert '<div class="language-python highlight">' in tutorial
    assert '<span class="kn">import</span>' in tutorial
    assert "css/pygments.css" in tutorial and (site / "css" / "pygments.css").is_file()
    # Every kind of reference heading has a label (no empty box before the heading).
    labels = (site / "css" / "reference.css").read_text()
    kinds = {kind for text in pages.values()
             for kind in re.findall(r'class="doc-symbol doc-symbol-heading doc-symbol-(\w+)"',
                                    text)}
    assert {"class", "function", "method", "attribute"} <= kinds
    for kind in kinds:
        assert f"code.doc-symbol-{kind}::after {{ content: " in labels, kind
    # The contract is a page of the site, and the HTTP reference links it.
    contract = (site / "contract" / "index.html").read_text()
    assert 'id="7-errors"' in contract and "GEOCODE_KEY_MISSING" in contract
    assert 'href="../contract/"' in (site / "api" / "index.html").read_text()


def test_the_contract_is_cited_from_the_repository() -> None:
    """The docs, the README and the docstrings cite the contract as docs/contract.md, a
    file of the repository (not a specification kept elsewhere)."""
    assert (REPO / "docs" / "contract.md").is_file()
    outside = "service-api" + ".md"
    citing = [str(path.relative_to(REPO))
              for folder in ("docs", "src", "scripts", "examples", "tests")
              for path in (REPO / folder).rglob("*")
              if path.is_file() and path.suffix in (".md", ".py", ".json", ".yml", ".js")
              and outside in path.read_text(errors="replace")]
    citing += ["README.md"] if outside in (REPO / "README.md").read_text() else []
    assert citing == []
