// The side panel for several selected fields: one type for all, wrapping them into an array,
// lining them up, duplicating and deleting them.

import { h } from "#common/dom.js";
import { fieldTypeNames, typeLabel } from "./fields.js";

export function severalFieldsPanel(panel, fields) {
  const { state } = panel;
  const ids = fields.map((f) => f.id);
  const types = new Set(fields.map((f) => f.type));
  const onePage = new Set(fields.map((f) => f.page || 0)).size === 1;
  panel.root.append(
    h(
      "div",
      { class: "ed-panel-head" },
      h("h2", { class: "ed-panel-title" }, `${fields.length} fields selected`),
      h(
        "div",
        { class: "ed-panel-sub" },
        types.size === 1 ? typeLabel([...types][0]) : "Mixed types",
      ),
    ),
  );
  const type = panel.select("type", [
    ...(types.size > 1 ? [["", "Mixed"]] : []),
    ...fieldTypeNames().map((t) => [t, typeLabel(t)]),
  ]);
  type.value = types.size === 1 ? [...types][0] : "";
  type.addEventListener("change", () => type.value && state.setType(ids, type.value));
  panel.root.append(panel.section("Type", panel.row("Type of all", type)));

  const wrap = panel.button("Wrap in array", () => panel.actions.run("wrap-array"), {
    kind: "ed-btn-primary",
    prop: "wrap-array",
    title: "One list value fills these fields, top to bottom",
  });
  const inArray = fields.some((f) => state.arrayOf(f.id));
  panel.root.append(
    panel.section(
      "Array",
      h(
        "small",
        { class: "ed-hint" },
        "Rows of a table: fields of one type in one column become one array, filled from a list, top to bottom.",
      ),
      inArray
        ? h(
            "small",
            { class: "ed-hint ed-warn" },
            "Some of these fields are already in an array.",
          )
        : null,
      wrap,
    ),
  );
  if (onePage) {
    const arrange = (label, how) =>
      panel.button(label, () => state.arrange(how), {
        kind: "ed-btn-small",
        prop: `arrange-${how}`,
      });
    panel.root.append(
      panel.section(
        "Arrange",
        h(
          "div",
          { class: "ed-arrange" },
          arrange("Align left", "left"),
          arrange("Align right", "right"),
          arrange("Align top", "top"),
          arrange("Align bottom", "bottom"),
          arrange("Same width", "width"),
          arrange("Same height", "height"),
          arrange("Distribute vertically", "distribute"),
        ),
      ),
    );
  }
  panel.root.append(
    h(
      "div",
      { class: "ed-actions" },
      panel.button("Duplicate", () => panel.actions.run("duplicate"), { prop: "duplicate" }),
      panel.button(`Delete ${fields.length} fields`, () => panel.actions.run("delete"), {
        kind: "ed-btn-danger",
        prop: "delete",
      }),
    ),
  );
}
