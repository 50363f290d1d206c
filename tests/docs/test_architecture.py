"""docs/architecture.md shows the service's house as it is: every resource family and every
module of ``src/bodygraph_server`` is named in the service's section."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "src" / "bodygraph_server"


def _service_section() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text()
    return text[text.index("## The service:"):text.index("## The import rules")]


def test_every_resource_family_is_in_the_resources_row() -> None:
    row = next(line for line in _service_section().splitlines()
               if line.startswith("| `resources/`"))
    families = sorted(path.parent.name for path in (SERVICE / "resources").glob("*/__init__.py"))
    assert families and [name for name in families if f"`{name}/`" not in row] == []


def test_every_module_of_the_service_is_named() -> None:
    section = _service_section()
    modules = sorted(path.relative_to(SERVICE).as_posix() for path in SERVICE.rglob("*.py")
                     if path.name != "__init__.py")
    assert "app.py" in modules  # the scan sees the service's sources
    assert [module for module in modules if f"`{Path(module).name}`" not in section
            and f"`{Path(module).stem}`" not in section] == []
