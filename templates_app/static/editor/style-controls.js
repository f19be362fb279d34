// The five style settings (font, size, colour, alignment, weight): the document's, or one
// field's, which leave a setting to the document when empty.

import { h } from "#common/dom.js";
import { setGroupEntry } from "./fields.js";

// The five style settings, of the document (``field`` null) or of one field.
export function styleControls(panel, field) {
  const { state, config } = panel;
  const id = field && field.id;
  const get = (key) => (field ? state.field(id)?.style?.[key] : state.style[key]);
  const set = (key, value) => {
    if (!field) state.setDocumentStyle(key, value);
    else
      state.updateField(id, (f) => setGroupEntry(f, "style", key, value), {
        coalesce: `style:${id}:${key}`,
      });
  };
  const inherited = (key, fallback) => (field ? state.style[key] || fallback : fallback);
  const prefix = field ? "style" : "docStyle";

  const family = panel.bind(
    panel.input(`${prefix}.fontFamily`, {
      list: "ed-font-families",
      placeholder: inherited("fontFamily", "Noto Sans"),
    }),
    () => get("fontFamily"),
    (value) => set("fontFamily", value.trim() ? value : null),
  );
  const size = panel.bind(
    panel.input(`${prefix}.fontSize`, {
      type: "number",
      min: 1,
      max: 200,
      step: 0.5,
      placeholder: field ? String(state.style.fontSize || "auto") : "auto",
    }),
    () => get("fontSize"),
    (value) => set("fontSize", value === "" ? null : Number(value)),
    { on: "change" },
  );
  const colorText = panel.bind(
    panel.input(`${prefix}.textColor`, {
      placeholder: inherited("textColor", "#000000"),
      maxlength: 7,
    }),
    () => get("textColor"),
    (value) => set("textColor", value.trim() || null),
    { on: "change" },
  );
  const swatch = panel.bind(
    h("input", { type: "color", class: "ed-swatch", "aria-label": "Pick a colour" }),
    () => get("textColor") || inherited("textColor", "#000000"),
    (value) => set("textColor", value.toUpperCase()),
  );
  const alignment = panel.bind(
    panel.select(`${prefix}.alignment`, [
      ["", field ? "Document default" : "Left (default)"],
      ...config.alignments.map((a) => [a, cap(a)]),
    ]),
    () => get("alignment") || "",
    (value) => set("alignment", value || null),
    { on: "change" },
  );
  const weight = panel.bind(
    panel.select(`${prefix}.fontWeight`, [
      ["", field ? "Document default" : "Normal (default)"],
      ...config.fontWeights.map((w) => [w, { boldItalic: "Bold italic" }[w] || cap(w)]),
    ]),
    () => get("fontWeight") || "",
    (value) => set("fontWeight", value || null),
    { on: "change" },
  );
  return h(
    "div",
    { class: "ed-grid" },
    h("div", { class: "ed-span2" }, panel.row("Font", family)),
    panel.row("Size (pt)", size),
    panel.row("Colour", h("div", { class: "ed-color" }, swatch, colorText)),
    panel.row("Alignment", alignment),
    panel.row("Weight", weight),
  );
}

function cap(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
