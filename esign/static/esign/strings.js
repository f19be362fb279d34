// The page's words in the reader's language. The server translates them with Django's catalogue
// (esign/signing/page_strings.py) and hands them over in the json_script "page-strings": no inline
// script, and one catalogue for the templates and the scripts. "{name}" marks a value put in.

let strings = null;

function template(key) {
  if (strings === null) {
    const el = document.getElementById("page-strings");
    strings = el ? JSON.parse(el.textContent) : {};
  }
  return strings[key] ?? key;
}

export function t(key, values = {}) {
  return template(key).replace(/\{(\w+)\}/g, (match, name) =>
    name in values ? String(values[name]) : match,
  );
}

// The same words as nodes to show, each value put in isolated in a <bdi>: a title or a name
// keeps its own direction and leaves the sentence's alone, so that "Invoice" stays before
// "(PDF)" on an Arabic page and an Arabic title keeps its quotes on an English one. A value may
// be nodes already (a sentence put in another); a number is plain text.
export function tNodes(key, values = {}) {
  const text = template(key);
  const nodes = [];
  let last = 0;
  for (const match of text.matchAll(/\{(\w+)\}/g)) {
    if (!(match[1] in values)) continue;
    if (match.index > last) nodes.push(text.slice(last, match.index));
    const value = values[match[1]];
    if (typeof value === "number") {
      nodes.push(String(value));
    } else {
      const bdi = document.createElement("bdi");
      bdi.append(...(value instanceof Node || Array.isArray(value) ? [value].flat() : [String(value)]));
      nodes.push(bdi);
    }
    last = match.index + match[0].length;
  }
  if (last < text.length) nodes.push(text.slice(last));
  return nodes;
}

// The language the page is in (<html lang>), for Intl's lists.
export function pageLanguage() {
  return document.documentElement.lang || "en";
}
