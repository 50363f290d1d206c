"""The tools' optional ``lang``: with it, a tool's structured content gets ``labels``, the
words of its data in that language under the same keys (the library result's own
``labels(lang)``), a picture is drawn in it and its errors are said in it
(:mod:`bodygraph_mcp.tool_errors`); without it, the result is as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import Field

Language = Literal["en", "de", "nl", "es", "fr", "pt", "it", "ru", "ja", "zh-Hans"]
"""The library's languages (``bodygraph.languages()``; a test holds the two equal)."""
Lang = Annotated[Language | None, Field(description=(
    "Optional language of the words: adds `labels` (the data's words in it, same keys; "
    "the data itself stays English), draws pictures and says errors in it. One of en, de, "
    "nl, es, fr, pt, it, ru, ja, zh-Hans."))]
LABELS = "labels"


def labelled(result: CallToolResult, words: Callable[[str], Any],
             lang: str | None) -> CallToolResult:
    """``result`` with ``words(lang)``, the labels of its data, in its structured content."""
    if lang is None or result.structured_content is None:
        return result
    result.structured_content[LABELS] = words(lang)
    return result
