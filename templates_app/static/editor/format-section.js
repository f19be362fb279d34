// The side panel's "Format" section: a date field's pattern, or a number's decimals, separators
// and currency symbol (the keys each type has are fields.js' formatKeys). Null for other types.

import { h } from "#common/dom.js";
import { formatKeys, setGroupEntry } from "./fields.js";

const DATE_PATTERNS = [
  "MM/DD/YYYY",
  "DD/MM/YYYY",
  "YYYY-MM-DD",
  "MMMM D, YYYY",
  "MMM D, YYYY",
  "D MMMM YYYY",
  "MM/DD/YY",
];
const FORMAT_LABELS = {
  decimals: "Decimals",
  thousandsSeparator: "Thousands separator",
  decimalSeparator: "Decimal separator",
  currencySymbol: "Currency symbol",
};

export function formatSection(panel, field) {
  const { state } = panel;
  const id = field.id;
  const setFormat = (key, value) =>
    state.updateField(id, (f) => setGroupEntry(f, "format", key, value), {
      coalesce: `format:${id}:${key}`,
    });
  const get = (key) => state.field(id)?.format?.[key];
  if (field.type === "date") {
    const pattern = panel.bind(
      panel.input("format.pattern", { list: "ed-date-patterns", placeholder: "MM/DD/YYYY" }),
      () => get("pattern"),
      (value) => setFormat("pattern", value.trim() ? value : null),
    );
    return panel.section(
      "Format",
      panel.row("Date pattern", pattern, "YYYY, YY, MMMM, MMM, MM, M, DD, D, dddd, ddd."),
      h(
        "datalist",
        { id: "ed-date-patterns" },
        DATE_PATTERNS.map((p) => h("option", { value: p })),
      ),
    );
  }
  const keys = formatKeys(field.type);
  if (!keys.length) return null;
  return panel.section(
    "Format",
    h(
      "div",
      { class: "ed-grid" },
      keys.map((key) =>
        panel.row(
          FORMAT_LABELS[key],
          panel.bind(
            panel.input(`format.${key}`, {
              type: key === "decimals" ? "number" : "text",
              min: 0,
              max: 10,
              maxlength: 5,
              placeholder: {
                decimals: field.type === "dollar" ? "2" : "as given",
                thousandsSeparator: ",",
                decimalSeparator: ".",
                currencySymbol: "$",
              }[key],
            }),
            () => get(key),
            (value) =>
              setFormat(
                key,
                key === "decimals" ? (value === "" ? null : Math.round(Number(value))) : value,
              ),
            { on: key === "decimals" ? "change" : "input" },
          ),
        ),
      ),
    ),
  );
}
