// What the editor knows about field types: names, colours, default sizes, and how a field's
// type-specific parts (boxes, radio options, parts of complex types) are laid out.

import { boxToRect, rectToBox, splitBox, unionRect } from "./geometry.js";

export const TYPE_LABELS = {
  shortText: "Short text",
  longText: "Long text",
  email: "Email",
  ssn: "SSN",
  ein: "EIN",
  date: "Date",
  radioGroup: "Radio group",
  imageFile: "Image",
  checkbox: "Checkbox",
  number: "Number",
  dollar: "Dollar",
  integer: "Integer",
  percent: "Percent",
  charList: "Character boxes",
  textWrap: "Wrapped lines",
  fullName: "Full name",
  usAddress: "US address",
  phone: "Phone",
};

// One colour family per kind of value, so a page of fields reads at a glance.
const CATEGORY = {
  shortText: "text",
  longText: "text",
  email: "text",
  ssn: "id",
  ein: "id",
  date: "date",
  radioGroup: "choice",
  checkbox: "choice",
  imageFile: "image",
  number: "number",
  dollar: "number",
  integer: "number",
  percent: "number",
  charList: "boxes",
  textWrap: "boxes",
  fullName: "complex",
  usAddress: "complex",
  phone: "complex",
};

export function categoryOf(type) {
  return CATEGORY[type] || "text";
}

// Default size in points of a field placed with a click instead of a drag.
const DEFAULT_SIZE = {
  checkbox: [12, 12],
  radioGroup: [40, 12],
  imageFile: [120, 60],
  longText: [220, 48],
  textWrap: [220, 36],
  usAddress: [240, 54],
  date: [90, 18],
  number: [80, 18],
  dollar: [80, 18],
  integer: [60, 18],
  percent: [60, 18],
  ssn: [100, 18],
  ein: [100, 18],
};

export function defaultSize(type) {
  return DEFAULT_SIZE[type] || [160, 18];
}

// The stem of default aliases: a new date field is "date1", then "date2".
const ALIAS_STEM = {
  shortText: "text",
  longText: "longText",
  radioGroup: "choice",
  imageFile: "image",
  dollar: "amount",
  charList: "chars",
  textWrap: "lines",
  fullName: "name",
  usAddress: "address",
};

export function aliasStem(type) {
  return ALIAS_STEM[type] || type;
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

// Widths of the parts when a complex field gets separate boxes, as [name, weight] rows.
const PART_LAYOUT = {
  fullName: [
    [
      ["firstName", 4],
      ["mi", 1],
      ["lastName", 4],
    ],
  ],
  phone: [
    [
      ["countryCode", 1],
      ["areaCode", 1.2],
      ["exchange", 1.2],
      ["line", 1.6],
    ],
  ],
  usAddress: [
    [["street1", 1]],
    [["street2", 1]],
    [
      ["city", 4],
      ["state", 1.2],
      ["zip", 1.8],
      ["country", 1.2],
    ],
  ],
};

export const PART_LABELS = {
  firstName: "First name",
  mi: "Middle initial",
  lastName: "Last name",
  street1: "Street",
  street2: "Street (line 2)",
  city: "City",
  state: "State",
  zip: "ZIP",
  country: "Country",
  countryCode: "Country code",
  areaCode: "Area code",
  exchange: "Exchange",
  line: "Line",
};

// ``rect`` split into ``count`` pieces along the screen axis ``direction`` (columns / rows), so
// that "side by side" means what the user sees, also on rotated pages. ``viewport`` is the page's
// pdf.js viewport.
export function splitRect(viewport, rect, count, direction, weights = null) {
  const box = rectToBox(viewport, rect);
  return splitBox(box, count, direction, weights).map((piece) => boxToRect(viewport, piece));
}

export function partRects(viewport, type, rect) {
  const rows = PART_LAYOUT[type];
  const box = rectToBox(viewport, rect);
  const rowBoxes = splitBox(box, rows.length, "rows");
  const parts = {};
  rows.forEach((row, index) => {
    const cells = splitBox(
      rowBoxes[index],
      row.length,
      "columns",
      row.map(([, weight]) => weight),
    );
    row.forEach(([name], cell) => {
      parts[name] = boxToRect(viewport, cells[cell]);
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
  if (!(type in PART_LAYOUT)) delete field.parts;
  else if (field.parts) field.parts = partRects(viewport, type, field.rect);
  if (type !== "longText") delete field.autoSize;
  if (field.format) {
    const keep =
      {
        date: ["pattern"],
        number: ["decimals", "thousandsSeparator", "decimalSeparator"],
        integer: ["thousandsSeparator"],
        percent: ["decimals", "thousandsSeparator", "decimalSeparator"],
        dollar: ["decimals", "thousandsSeparator", "decimalSeparator", "currencySymbol"],
      }[type] || [];
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

export function subLabel(field, kind, key) {
  if (kind === "boxes") return String(key + 1);
  if (kind === "options") return field.options[key].id;
  return PART_LABELS[key] || key;
}
