// The side panel's sections for the parts of a field that are placed on their own: the
// character boxes or lines of a field (charList, textWrap), the options of a radio group, and the
// parts of a complex type (a full name's first name, last name...).

import { h } from "#common/dom.js";
import { partRects, partsOf, subLabel } from "./fields.js";

export function boxesSection(panel, field) {
  const { state } = panel;
  const isChars = field.type === "charList";
  const count = panel.bind(
    panel.input("boxCount", { type: "number", min: 1, max: 200, step: 1 }),
    () => (state.field(field.id)?.boxes || []).length,
    (value) => {
      const n = Math.round(Number(value));
      if (!Number.isFinite(n) || n < 1 || n > 200) return panel.sync();
      state.setBoxCount(field.id, n);
    },
    { on: "change" },
  );
  return panel.section(
    isChars ? "Character boxes" : "Lines",
    panel.row(
      isChars ? "Number of boxes" : "Number of lines",
      count,
      isChars
        ? "One character per box; the field is split into equal boxes. Select a box on the page to move or resize it alone."
        : "One line of text per box, top to bottom. Select a line on the page to adjust it.",
    ),
  );
}

export function optionsSection(panel, field) {
  const { state } = panel;
  const id = field.id;
  const rows = field.options.map((option, index) =>
    subRow(
      panel,
      id,
      "options",
      index,
      "Remove this option",
      panel.bind(
        panel.input(`option.${index}.id`, { "aria-label": `Option ${index + 1} value` }),
        () => state.field(id)?.options[index]?.id,
        (value) =>
          state.updateField(id, (f) => (f.options[index].id = value), {
            coalesce: `option:${id}:${index}`,
          }),
      ),
    ),
  );
  const splitCount = panel.input("splitCount", {
    type: "number",
    min: 1,
    max: 50,
    value: String(field.options.length),
  });
  const direction = panel.select("splitDirection", [
    ["columns", "side by side"],
    ["rows", "stacked"],
  ]);
  return panel.section(
    "Options",
    h(
      "small",
      { class: "ed-hint" },
      "Each option is one button; its value is what the fill data sends.",
    ),
    h("div", { class: "ed-sub-list" }, rows),
    h(
      "div",
      { class: "ed-inline" },
      panel.button("Draw options", () => panel.actions.run("draw-options", { fieldId: id }), {
        title: "Drag on the page to add an option",
        prop: "draw-options",
      }),
      h("span", { class: "ed-muted" }, "or split into"),
      splitCount,
      direction,
      panel.button(
        "Split",
        () => {
          const n = Math.round(Number(splitCount.value));
          if (n >= 1 && n <= 50) state.splitOptions(id, n, direction.value);
        },
        { prop: "split-options" },
      ),
    ),
  );
}

export function partsSection(panel, field) {
  const { state } = panel;
  const id = field.id;
  const [toggle, toggleRow] = panel.checkbox("separateParts", "Separate box for each part");
  const rectsOf = (f) => partRects(state.viewport(f.page || 0), f.type, f.rect);
  panel.bind(
    toggle,
    () => Boolean(state.field(id)?.parts),
    (on) => state.setParts(id, on, rectsOf),
    { on: "change" },
  );
  const children = [
    toggleRow,
    h(
      "small",
      { class: "ed-hint" },
      `Parts: ${partsOf(field.type)
        .map((part) => part.label)
        .join(", ")}.`,
    ),
  ];
  if (field.parts) {
    children.push(
      h(
        "div",
        { class: "ed-sub-list" },
        Object.keys(field.parts).map((name) =>
          subRow(
            panel,
            id,
            "parts",
            name,
            "Leave this part out",
            h("span", { class: "ed-sub-row-name" }, subLabel(field, "parts", name)),
          ),
        ),
      ),
      panel.button("Reset layout", () => state.setParts(id, true, rectsOf)),
    );
  }
  return panel.section("Parts", ...children);
}

// A row of the list of a field's options or parts: ``content``, then its Select and remove (×)
// buttons; marked while that option or part is the selection.
function subRow(panel, id, kind, key, removeTitle, ...content) {
  const { state } = panel;
  const selected = state.sub && state.sub.kind === kind && state.sub.key === key;
  return h(
    "div",
    { class: `ed-sub-row${selected ? " is-selected" : ""}` },
    ...content,
    panel.button("Select", () => state.selectSub(id, kind, key), { kind: "ed-btn-small" }),
    panel.button(
      "×",
      () => {
        state.selectSub(id, kind, key);
        state.deleteSub();
      },
      { kind: "ed-btn-small ed-btn-icon", title: removeTitle },
    ),
  );
}
