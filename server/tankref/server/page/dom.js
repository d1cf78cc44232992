// Building DOM and SVG nodes. Text always goes in as text nodes (never parsed as HTML), so
// names, chat lines and labels from the log cannot inject anything into the page.

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An HTML element: el("li", {class: "x"}, "text", otherNode). */
export function el(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element, same call shape as el(). */
export function svg(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Replace every child of a node. */
export function replace(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined));
}

/** A number for people: at most `digits` decimals, no trailing zeros. */
export function num(value, digits = 1) {
  return Number(value).toFixed(digits).replace(/\.?0+$/, "");
}

/** A probability as a percentage text. */
export function pct(p) {
  const v = 100 * p;
  return (v > 0 && v < 0.1 ? "<0.1" : v.toFixed(1)) + "%";
}

/** A chance in words a viewer takes in at a glance: "7 in 10", "1 in 25", "97 in 100". */
export function inWords(p) {
  if (!(p > 0)) return "no chance";
  if (p >= 1) return "certain";
  if (p < 0.001) return "<1 in 1,000";
  if (p < 0.095) return `1 in ${Math.round(1 / p)}`;
  if (p >= 0.95) return p > 0.995 ? ">99 in 100" : `${Math.round(100 * p)} in 100`;
  return `${Math.round(10 * p)} in 10`;
}

// Fields that are lengths or bearings, by the name the rulesets give them: a plain "range"
// or "distance" is in the table's measure (inches; hexes on a hex map), "_cm" says cm.
const LENGTH = /^(range|distance|moved|move|reach|radius|within)$/;
const ANGLE = /^(facing|direction|bearing|turned|yaw)$/;

/** A field's value with its unit, e.g. ("range", 42.19) -> "42.2 in"; a count stays bare. */
export function measured(key, value, onHexes = false) {
  if (typeof value !== "number") return String(value);
  const name = String(key).toLowerCase();
  if (/_cm$/.test(name)) return `${num(value, 1)} cm`;
  if (/_(in|inches)$/.test(name)) return `${num(value, 1)} in`;
  if (LENGTH.test(name)) return onHexes ? `${num(value, 1)} hex${value === 1 ? "" : "es"}` : `${num(value, 1)} in`;
  if (ANGLE.test(name) || /_deg$/.test(name)) return `${Math.round(value)}°`;
  return num(value, 3);
}
