// The side panel when nothing is selected: the document's style, its fields (by page, with a
// filter), its arrays and the keyboard shortcuts.

import { clear, h } from "#common/dom.js";
import { categoryOf, typeLabel } from "./fields.js";
import { styleControls } from "./style-controls.js";

const SHORTCUTS = [
  ["V", "Select tool"],
  ["R", "Draw a field"],
  ["Drag on the page", "Select several (Shift adds)"],
  ["Shift+click", "Add to / remove from selection"],
  ["Arrows", "Move 1 pt (Shift: 10 pt)"],
  ["Alt+arrows", "Resize 1 pt (Shift: 10 pt)"],
  ["Delete", "Delete the selection"],
  ["Ctrl/⌘+C, V, D", "Copy, paste, duplicate"],
  ["Ctrl/⌘+Z, Shift+Z", "Undo, redo"],
  ["Ctrl/⌘+A", "Select all on this page"],
  ["Ctrl/⌘+S", "Save"],
  ["+ / − / 0", "Zoom in, out, fit width"],
  ["Esc", "Back to select / clear selection"],
];

export function documentPanel(panel) {
  const { state } = panel;
  panel.root.append(
    h(
      "div",
      { class: "ed-panel-head" },
      h("h2", { class: "ed-panel-title" }, "Document"),
      h(
        "div",
        { class: "ed-panel-sub" },
        `${state.pages.length} page${state.pages.length === 1 ? "" : "s"} · `,
        panel.bind(
          h("span"),
          () => `${state.fields.length} field${state.fields.length === 1 ? "" : "s"}`,
        ),
      ),
    ),
  );
  panel.root.append(
    h(
      "p",
      { class: "ed-empty" },
      "Click ",
      h("b", {}, "Field"),
      " in the toolbar (or press R) and drag on the page to add a field. Click a field to edit it; drag on the page to select several.",
    ),
  );
  panel.root.append(panel.section("Document style", styleControls(panel, null)));

  const search = panel.input("fieldFilter", {
    type: "search",
    placeholder: "Filter by alias or type",
  });
  search.value = panel.filter;
  search.addEventListener("input", () => {
    panel.filter = search.value;
    renderFieldList(panel);
  });
  panel.fieldList = h("div", { class: "ed-field-list" });
  renderFieldList(panel);
  panel.root.append(panel.section("Fields", search, panel.fieldList));

  if (state.arrays.length) {
    panel.root.append(
      panel.section(
        "Arrays",
        h(
          "div",
          { class: "ed-array-list" },
          state.arrays.map((array) =>
            h(
              "div",
              { class: "ed-array-item" },
              panel.bind(
                panel.input(`array.${array.id}.alias`, { "aria-label": "Array alias" }),
                () => array.alias,
                (value) => state.updateArray(array.id, (a) => (a.alias = value)),
              ),
              h("span", { class: "ed-muted" }, `${array.fieldIds.length} rows`),
              panel.button("Select", () => state.select(array.fieldIds), { kind: "ed-btn-small" }),
            ),
          ),
        ),
      ),
    );
  }

  panel.root.append(
    h(
      "details",
      { class: "ed-section ed-shortcuts" },
      h("summary", { class: "ed-section-title" }, "Keyboard shortcuts"),
      h(
        "dl",
        {},
        SHORTCUTS.map(([keys, what]) => [h("dt", {}, h("kbd", {}, keys)), h("dd", {}, what)]),
      ),
    ),
  );
}

// The list of fields, again after each change and each keystroke in the filter.
export function renderFieldList(panel) {
  const { state } = panel;
  const wanted = panel.filter.trim().toLowerCase();
  const list = clear(panel.fieldList);
  const byPage = new Map();
  for (const field of state.fields) {
    const text = `${field.alias} ${field.type} ${typeLabel(field.type)}`.toLowerCase();
    if (wanted && !text.includes(wanted)) continue;
    const page = field.page || 0;
    if (!byPage.has(page)) byPage.set(page, []);
    byPage.get(page).push(field);
  }
  if (!byPage.size) {
    list.append(
      h("p", { class: "ed-muted" }, state.fields.length ? "No field matches." : "No fields yet."),
    );
    return;
  }
  for (const page of [...byPage.keys()].sort((a, b) => a - b)) {
    list.append(h("div", { class: "ed-list-page" }, `Page ${page + 1}`));
    for (const field of byPage.get(page)) {
      list.append(
        h(
          "button",
          {
            type: "button",
            class: "ed-list-item",
            dataset: { fieldId: field.id },
            onclick: () => {
              state.select([field.id]);
              panel.actions.run("reveal-field", { fieldId: field.id });
            },
          },
          h("span", { class: `ed-dot cat-${categoryOf(field.type)}` }),
          h("span", { class: "ed-list-alias" }, field.alias || field.id),
          h("span", { class: "ed-list-type" }, typeLabel(field.type)),
        ),
      );
    }
  }
}
