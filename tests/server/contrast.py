"""How readable a page's text is, from the colours the browser computed: every visible
element holding text, its colour against the background it is drawn on (the first opaque
background among it and its ancestors, the translucent ones between blended in), as WCAG
2's contrast ratio. Presence says nothing of light grey on light grey; this does."""

from __future__ import annotations

from typing import Any

#: WCAG 2 AA for normal text
MIN_RATIO = 4.5

_SCRIPT = """
const root = document.querySelector(arguments[0]);
function rgba(text) {
  const parts = text.match(/rgba?\\(([^)]*)\\)/)[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
  return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
}
function over(top, base) {
  return [0, 1, 2].map(i => top[i] * top[3] + base[i] * (1 - top[3]));
}
function background(element) {
  const layers = [];
  for (let e = element; e; e = e.parentElement) {
    const colour = rgba(getComputedStyle(e).backgroundColor);
    if (colour[3] > 0) layers.push(colour);
    if (colour[3] >= 1) break;
  }
  let base = [255, 255, 255];
  for (const layer of layers.reverse()) base = over(layer, base);
  return base;
}
function luminance(c) {
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
}
const found = [];
for (const element of [root, ...root.querySelectorAll("*")]) {
  const text = Array.from(element.childNodes).filter(n => n.nodeType === 3).map(n => n.textContent).join("").trim();
  const box = element.getBoundingClientRect();
  const style = getComputedStyle(element);
  if (!text || box.width === 0 || box.height === 0 || style.visibility === "hidden") continue;
  const back = background(element);
  const fore = over(rgba(style.color), back);
  const [a, b] = [luminance(fore), luminance(back)].sort((x, y) => y - x);
  found.push([element.tagName.toLowerCase() + (element.className ? "." + element.className : ""),
              text.slice(0, 40), (a + 0.05) / (b + 0.05), style.color, "rgb(" + back.map(Math.round) + ")"]);
}
return found;
"""


def contrasts(driver: Any, root: str = "body") -> list[tuple[str, str, float, str, str]]:
    """(element, its text, contrast ratio, colour, background) of every visible element
    holding text under root."""
    return [tuple(row) for row in driver.execute_script(_SCRIPT, root)]


def unreadable(driver: Any, root: str = "body") -> list[str]:
    """Each visible text under root whose contrast is below MIN_RATIO, said with its colours."""
    return [f"{element} {text!r}: {ratio:.2f} ({colour} on {back})"
            for element, text, ratio, colour, back in contrasts(driver, root) if ratio < MIN_RATIO]
