"""``bodygraph transit ... --svg/--png`` and ``bodygraph connection ... --svg/--png``, run
in-process: the images are the renderer's overlays of the library's results."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bodygraph import calculate, connection, transit
from bodygraph.cli.main import main
from bodygraph.render import ConnectionInput, RenderInput, Theme, TransitInput, render_svg

A, B = "1980-01-03T08:30:00Z", "1985-07-09T14:00:00Z"
AT = "2024-03-20T03:06:00Z"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def _classes(document: str) -> set[str]:
    root = ET.fromstring(document.encode("utf-8"))
    return {word for element in root.iter() for word in element.get("class", "").split()}


def test_transit_svg_is_the_natal_chart_with_the_transit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "transit.svg"
    assert main(["transit", "--at", AT, "--utc", A, "--svg", str(path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)  # the JSON is printed as without --svg
    natal = calculate(_utc(A))
    result = transit(_utc(AT), natal=natal)
    assert printed == result.to_dict()
    document = path.read_text(encoding="utf-8")
    assert document == render_svg(TransitInput.from_gate_lines(
        RenderInput.from_chart(natal), [(a.gate, a.line) for a in result.activations],
        label="Transit 2024-03-20"))
    assert {"transit", "design", "personality"} <= _classes(document)
    assert 'class="activations transit"' in document
    for gate in result.gates:  # every transit gate is marked as the transit's
        sources = re.search(rf'data-gate="{gate}" data-sources="([^"]+)"', document)
        assert sources is not None and "transit" in sources.group(1).split()
    for channel in result.natal.completed_channels if result.natal else ():
        assert f'data-channel="{channel.short}"' in document


def test_connection_svg_has_both_persons(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "connection.svg"
    assert main(["connection", "--utc", A, "--utc", B, "--svg", str(path),
                 "--theme", "dark"]) == 0
    assert "Electromagnetic" in capsys.readouterr().out
    one, two = calculate(_utc(A)), calculate(_utc(B))
    document = path.read_text(encoding="utf-8")
    assert document == render_svg(ConnectionInput(
        RenderInput.from_chart(one), RenderInput.from_chart(two), "Person 1", "Person 2"),
        Theme.preset("dark"))
    assert {"person-a", "person-b"} <= _classes(document)
    result = connection(one, two)
    assert result.electromagnetic  # the pair has some: each is drawn in both colours
    for channel in result.electromagnetic:
        group = document.split(f'data-channel="{channel.short}">', 1)[1].split("</g>\n</g>")[0]
        assert "stripe person-a" in group and "stripe person-b" in group


def test_png_of_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    transit_png, connection_png = tmp_path / "t.png", tmp_path / "c.png"
    assert main(["transit", "--at", AT, "--date", "1990-05-14", "--time", "08:30",
                 "--tz", "Europe/Berlin", "--png", str(transit_png), "--theme", "print"]) == 0
    assert main(["connection", "--utc", A, "--utc", B, "--png", str(connection_png)]) == 0
    capsys.readouterr()
    for path in (transit_png, connection_png):
        assert path.read_bytes()[:8] == PNG_SIGNATURE


@pytest.mark.parametrize(("args", "status", "message"), [
    (["transit", "--at", AT, "--utc", A, "--theme", "sepia"], 2,
     "--theme 'sepia' is not a theme; use one of light, dark, print, high-contrast"),
    (["connection", "--utc", A, "--utc", B, "--theme", "sepia"], 2,
     "--theme 'sepia' is not a theme; use one of light, dark, print, high-contrast"),
    (["transit", "--at", AT], 2, "--svg and --png draw the transit over a natal chart"),
])
def test_image_mistakes_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     args: list[str], status: int, message: str) -> None:
    path = tmp_path / "x.svg"
    assert main([*args, "--svg", str(path)]) == status
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("bodygraph: error: ")
    assert message in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert not path.exists()
