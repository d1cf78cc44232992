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
