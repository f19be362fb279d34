// The side panel for one selected field: its alias, type, label and flags, its position, the
// sections its type has (boxes, options, parts, format), its style and its array.

import { h, num } from "#common/dom.js";
import { categoryOf, fieldTypeNames, isSignerType, partsOf, typeLabel } from "./fields.js";
import { formatSection } from "./format-section.js";
import { styleControls } from "./style-controls.js";
import { boxesSection, optionsSection, partsSection } from "./sub-rect-sections.js";

export function fieldPanel(panel, field) {
  const { state } = panel;
  const id = field.id;
  const current = () => state.field(id) || field;
  const update = (change, key) => state.updateField(id, change, { coalesce: `${key}:${id}` });
  const member = state.arrayOf(id);

  panel.root.append(
    h(
      "div",
      { class: "ed-panel-head" },
      h("span", { class: `ed-chip cat-${categoryOf(field.type)}` }, typeLabel(field.type)),
      panel.bind(h("h2", { class: "ed-panel-title" }), () => current().alias || "(no alias)"),
      h(
        "div",
        { class: "ed-panel-sub" },
        `Page ${(field.page || 0) + 1} · id `,
        h("code", {}, id),
      ),
    ),
  );

  const alias = panel.bind(
    panel.input("alias", { required: true }),
    () => current().alias,
    (value) => update((f) => (f.alias = value), "alias"),
  );
  const type = panel.bind(
    panel.select(
      "type",
      fieldTypeNames().map((t) => [t, typeLabel(t)]),
    ),
    () => current().type,
    (value) => state.setType(id, value),
    { on: "change" },
  );
  // The label and the flags are left out of the field when empty or off (the spec omits them).
  const setOrDrop = (key) => (value) =>
    update((f) => {
      if (value) f[key] = value;
      else delete f[key];
    }, key);
  const flag = (key, text) => {
    const [box, row] = panel.checkbox(key, text);
    panel.bind(box, () => current()[key], setOrDrop(key), { on: "change" });
    return row;
  };
  const label = panel.bind(
    panel.input("label", { placeholder: "Shown to people filling a webform" }),
    () => current().label,
    setOrDrop("label"),
  );
  const readOnly = flag("readOnly", "Read-only in interactive PDFs");
  // A signer field is signed in a packet: no fill value, style or read-only setting.
  const signer = isSignerType(field.type);
  let aliasHint = "The key of this field's value in the fill data.";
  if (member) aliasHint = "Filled from the array's alias; this name labels the row.";
  if (signer) aliasHint = "Signed in a packet: a signer gets it by this field's id.";
  const general = [
    panel.row("Alias", alias, aliasHint),
    panel.row("Type", type, member ? "Changes every field of the array." : null),
    panel.row("Label", label),
    ...(signer ? [] : [readOnly]),
  ];
  if (field.type === "longText") {
    general.push(flag("autoSize", "Shrink text until it fits"));
  }
  panel.root.append(panel.section("Field", ...general));

  panel.root.append(
    panel.section(
      "Position",
      h(
        "div",
        { class: "ed-grid ed-grid4" },
        ["x", "y", "width", "height"].map((key) =>
          panel.row(
            { x: "X", y: "Y", width: "W", height: "H" }[key],
            panel.bind(
              panel.input(`rect.${key}`, { type: "number", step: 0.5 }),
              () => num(current().rect[key]),
              (value) => {
                const number = Number(value);
                if (value === "" || !Number.isFinite(number)) return panel.sync();
                state.setRect(id, { ...current().rect, [key]: number });
              },
              { on: "change" },
            ),
          ),
        ),
      ),
      h("small", { class: "ed-hint" }, "PDF points from the page's lower-left corner, y up."),
    ),
  );

  if (field.type === "charList" || field.type === "textWrap")
    panel.root.append(boxesSection(panel, field));
  if (field.type === "radioGroup") panel.root.append(optionsSection(panel, field));
  if (partsOf(field.type).length) panel.root.append(partsSection(panel, field));
  const format = formatSection(panel, field);
  if (format) panel.root.append(format);

  const rotation = panel.bind(
    panel.select("rotation", [
      ["0", "Page default"],
      ["90", "90°"],
      ["180", "180°"],
      ["270", "270°"],
    ]),
    () => String(current().rotation || 0),
    (value) =>
      update((f) => {
        if (Number(value)) f.rotation = Number(value);
        else delete f.rotation;
      }, "rotation"),
    { on: "change" },
  );
  if (!signer)
    panel.root.append(
      panel.section("Style", styleControls(panel, field), panel.row("Text rotation", rotation)),
    );

  if (member) panel.root.append(arraySection(panel, member));

  panel.root.append(
    h(
      "div",
      { class: "ed-actions" },
      panel.button("Duplicate", () => panel.actions.run("duplicate"), {
        title: "Ctrl/⌘+D",
        prop: "duplicate",
      }),
      panel.button("Delete field", () => panel.actions.run("delete"), {
        kind: "ed-btn-danger",
        title: "Delete",
        prop: "delete",
      }),
    ),
  );
}

// The array a field is a row of: its alias, and the way out of it.
function arraySection(panel, member) {
  const { state } = panel;
  const { array, row } = member;
  return panel.section(
    "Array",
    panel.row(
      "Array alias",
      panel.bind(
        panel.input("arrayAlias"),
        () => state.arrays.find((a) => a.id === array.id)?.alias,
        (value) => state.updateArray(array.id, (a) => (a.alias = value)),
      ),
      `Row ${row + 1} of ${array.fieldIds.length}. The fill data sends a list under this alias.`,
    ),
    h(
      "div",
      { class: "ed-inline" },
      panel.button("Select all rows", () => state.select(array.fieldIds)),
      panel.button("Unwrap", () => state.unwrapArray(array.id), {
        title: "Make the rows separate fields again",
        prop: "unwrap",
      }),
    ),
  );
}
