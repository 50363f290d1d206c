"""Apply an image's embedded stylesheet as a browser would (selectors, specificity,
order) to learn the colour CSS gives each element: tinycss2 and cssselect2, the CSS
parser and selector engine cairosvg itself uses."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

import cssselect2
import tinycss2

from bodygraph.render.css import resolve_vars

SVG = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class Styled:
    element: ET.Element
    css: dict[str, str]  # property -> value after the cascade (custom properties resolved)


def embedded_css(root: ET.Element) -> str:
    style = root.find(f"{SVG}style")
    assert style is not None and style.text
    return style.text


def cascade(root: ET.Element, css: str | None = None) -> list[Styled]:
    """Every element with the declarations that the stylesheet gives it."""
    matcher = cssselect2.Matcher()
    for rule in tinycss2.parse_stylesheet(css if css is not None else embedded_css(root),
                                          skip_whitespace=True, skip_comments=True):
        assert rule.type == "qualified-rule", rule
        declarations = [d for d in tinycss2.parse_declaration_list(
            rule.content, skip_whitespace=True, skip_comments=True)]
        for selector in cssselect2.compile_selector_list(rule.prelude):
            matcher.add_selector(selector, declarations)
    out = []
    for wrapper in cssselect2.ElementWrapper.from_xml_root(root).iter_subtree():
        values: dict[str, str] = {}
        for _specificity, _order, _pseudo, declarations in sorted(
                matcher.match(wrapper), key=lambda m: (m[0], m[1])):
            for d in declarations:
                values[d.lower_name] = resolve_vars(tinycss2.serialize(d.value).strip())
        out.append(Styled(wrapper.etree_element, values))
    return out
