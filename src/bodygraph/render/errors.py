"""Typed errors of the renderer."""

from __future__ import annotations

from bodygraph.errors import BodygraphError


class RenderError(BodygraphError):
    """A bodygraph image cannot be drawn or written."""


class RenderInputError(RenderError, ValueError):
    """Activations or centers that do not describe a bodygraph."""


class ThemeError(RenderError, ValueError):
    """A theme value is invalid (for example a colour that is not ``#rgb``/``#rrggbb``).

    ``field`` names the offending theme field (``None`` for the document as a whole).
    """

    def __init__(self, field: str | None, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


class PngUnavailableError(RenderError):
    """PNG output needs cairosvg and the system cairo library."""
