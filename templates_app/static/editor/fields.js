// What the editor knows about field types (names, colours, default sizes, parts, all from the
// server) and how a field's type-specific parts (boxes, radio options, parts of complex types)
// are laid out.

import { boxToRect, rectToBox } from "#common/page-box.js";
import { splitBox, unionRect } from "./geometry.js";

// The field types as the server declares them (core/engine/field_types.py, sent in the page's
// config): [{name, label, category, defaultSize, aliasStem, partRows, signer}]. The editor keeps no copy:
// a type declared there is offered, labelled, sized and split here. Set once at start-up.
const TYPES = new Map();

export function defineFieldTypes(types) {
  TYPES.clear();
  for (const type of types) TYPES.set(type.name, type);
}

export function fieldTypeNames() {
  return [...TYPES.keys()];
}

export function typeLabel(type) {
  return TYPES.get(type)?.label || type;
}

// A signer type (signature, initials, date signed, signer name): signed in a packet, never
// filled; the toolbar offers these apart.
export function isSignerType(type) {
  return Boolean(TYPES.get(type)?.signer);
}

// One colour family per kind of value (a .cat-* rule in editor.css), so a page of fields reads
// at a glance.
export function categoryOf(type) {
  return TYPES.get(type)?.category || "text";
}

// Default size in points of a field placed with a click instead of a drag.
export function defaultSize(type) {
  return TYPES.get(type)?.defaultSize || [160, 18];
}

// The stem of default aliases: a new date field is "date1", then "date2".
export function aliasStem(type) {
  return TYPES.get(type)?.aliasStem || type;
}

// The parts of a complex type ({name, label, weight}), row after row; none for other types.
export function partsOf(type) {
  return (TYPES.get(type)?.partRows || []).flat();
}

// The keys of a field's ``format`` that its type reads (core/engine/template_spec.py); none for
// types that are not dates or numbers.
const FORMAT_KEYS = {
  date: ["pattern"],
  number: ["decimals", "thousandsSeparator", "decimalSeparator"],
  integer: ["thousandsSeparator"],
  percent: ["decimals", "thousandsSeparator", "decimalSeparator"],
  dollar: ["decimals", "thousandsSeparator", "decimalSeparator", "currencySymbol"],
};

export function formatKeys(type) {
  return FORMAT_KEYS[type] || [];
}

export function newId(prefix) {
  const bytes = new Uint8Array(5);
  crypto.getRandomValues(bytes);
  return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ``stem`` + the smallest number not in ``taken`` (a Set of aliases).
export function uniqueName(stem, taken) {
  for (let n = 1; ; n += 1) {
    const candidate = `${stem}${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

// ``rect`` split into ``count`` pieces along the screen axis ``direction`` (columns / rows), so
// that "side by side" means what the user sees, also on rotated pages. ``viewport`` is the page's
// pdf.js viewport.
export function splitRect(viewport, rect, count, direction, weights = null) {
  const box = rectToBox(viewport, rect);
  return splitBox(box, count, direction, weights).map((piece) => boxToRect(viewport, piece));
}

// The boxes of a complex field's parts: its box split into the type's rows, top to bottom as
// the page is seen, and each row into its parts by weight.
export function partRects(viewport, type, rect) {
  const rows = TYPES.get(type).partRows;
  const box = rectToBox(viewport, rect);
  const rowBoxes = splitBox(box, rows.length, "rows");
  const parts = {};
  rows.forEach((row, index) => {
    const cells = splitBox(
      rowBoxes[index],
      row.length,
      "columns",
      row.map((part) => part.weight),
    );
    row.forEach((part, cell) => {
      parts[part.name] = boxToRect(viewport, cells[cell]);
    });
  });
  return parts;
}

// A sensible count of character boxes for a box of this shape (boxes about square).
function guessCharCount(viewport, rect) {
  const box = rectToBox(viewport, rect);
  return Math.max(1, Math.min(40, Math.round(box.width / Math.max(box.height, 1))));
}

// About one line per 14 points of height (``viewport`` is a scale-1 viewport: 1 px = 1 pt).
function guessLineCount(viewport, rect) {
  const box = rectToBox(viewport, rect);
  return Math.max(1, Math.min(20, Math.round(box.height / 14)));
}

// Change a field's type in place, adding what the new type requires (boxes, options) and
// dropping what it does not allow. Returns the field.
export function applyType(field, type, viewport) {
  field.type = type;
  if (type === "charList" || type === "textWrap") {
    if (!field.boxes || !field.boxes.length) {
      const count =
        type === "charList"
          ? guessCharCount(viewport, field.rect)
          : guessLineCount(viewport, field.rect);
      field.boxes = splitRect(
        viewport,
        field.rect,
        count,
        type === "charList" ? "columns" : "rows",
      );
    }
    if (type === "charList") field.maxLength = field.boxes.length;
    else delete field.maxLength;
  } else {
    delete field.boxes;
    if (type !== "shortText" && type !== "longText") delete field.maxLength;
  }
  if (type === "radioGroup") {
    if (!field.options || !field.options.length) {
      const box = rectToBox(viewport, field.rect);
      const direction = box.width >= box.height ? "columns" : "rows";
      field.options = splitRect(viewport, field.rect, 2, direction).map((rect, index) => ({
        id: `option${index + 1}`,
        rect,
      }));
    }
  } else {
    delete field.options;
  }
  if (!partsOf(type).length) delete field.parts;
  else if (field.parts) field.parts = partRects(viewport, type, field.rect);
  if (type !== "longText") delete field.autoSize;
  if (field.format) {
    const keep = formatKeys(type);
    for (const key of Object.keys(field.format)) if (!keep.includes(key)) delete field.format[key];
    if (!Object.keys(field.format).length) delete field.format;
  }
  return field;
}

// The sub-rectangles of a field that can be selected on their own: [kind, key, rect].
export function subRects(field) {
  const out = [];
  (field.boxes || []).forEach((rect, index) => out.push(["boxes", index, rect]));
  (field.options || []).forEach((option, index) => out.push(["options", index, option.rect]));
  for (const [name, rect] of Object.entries(field.parts || {})) out.push(["parts", name, rect]);
  return out;
}

export function getSubRect(field, kind, key) {
  if (kind === "options") return field.options[key].rect;
  return field[kind][key];
}

export function setSubRect(field, kind, key, rect) {
  if (kind === "options") field.options[key].rect = rect;
  else field[kind][key] = rect;
}

// After a sub-rectangle changed, the field's own rect is the box around all of them.
export function fitToSubRects(field) {
  const rects = subRects(field).map(([, , rect]) => rect);
  if (rects.length) field.rect = unionRect(rects);
}

// Set ``key`` of the field's ``group`` object (its format or its style): an empty value (null,
// "" or NaN) drops the key, and a group left empty drops the object.
export function setGroupEntry(field, group, key, value) {
  const entries = { ...(field[group] || {}) };
  if (value === null || value === "" || Number.isNaN(value)) delete entries[key];
  else entries[key] = value;
  if (Object.keys(entries).length) field[group] = entries;
  else delete field[group];
}

export function subLabel(field, kind, key) {
  if (kind === "boxes") return String(key + 1);
  if (kind === "options") return field.options[key].id;
  return partsOf(field.type).find((part) => part.name === key)?.label || key;
}
