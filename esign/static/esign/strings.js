// The page's words in the reader's language. The server translates them with Django's catalogue
// (esign/signing/page_strings.py) and hands them over in the json_script "page-strings": no inline
// script, and one catalogue for the templates and the scripts. "{name}" marks a value put in.

let strings = null;

export function t(key, values = {}) {
  if (strings === null) {
    const el = document.getElementById("page-strings");
    strings = el ? JSON.parse(el.textContent) : {};
  }
  const text = strings[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (match, name) => (name in values ? String(values[name]) : match));
}

// The language the page is in (<html lang>), for Intl's lists.
export function pageLanguage() {
  return document.documentElement.lang || "en";
}
