// The side panel: the document's settings when nothing is selected, the selected field's
// properties, or what can be done with several selected fields.
//
// Inputs are "bound": each has a getter that reads the state, so after any change the panel
// either rebuilds (when what it shows changed shape: another selection, another type) or just
// refreshes the values of the inputs the user is not typing in.
//
// This module keeps the panel itself (bound inputs, rebuilding, the problems of a refused save,
// and the building blocks the views use: section, row, input, select, checkbox, button); what it
// shows is built by document-panel.js (nothing selected), field-panel.js (one field) and
// several-fields-panel.js, each given the panel.

import { clear, h } from "#common/dom.js";
import { documentPanel, renderFieldList } from "./document-panel.js";
import { fieldPanel } from "./field-panel.js";
import { severalFieldsPanel } from "./several-fields-panel.js";

function isFormControl(el) {
  return (
    el instanceof HTMLInputElement ||
    el instanceof HTMLSelectElement ||
    el instanceof HTMLTextAreaElement
  );
}

export class Panel {
  constructor(root, { state, config, actions }) {
    this.root = root;
    this.state = state;
    this.config = config;
    this.actions = actions; // the editor's ActionRegistry (actions.js): run(name, detail)
    this.bindings = [];
    this.key = null;
    this.filter = "";
    this.fieldList = null;
    state.addEventListener("change", (event) => this.onChange(event.detail));
  }

  // What the panel shows, as a string: when it changes, the panel is rebuilt.
  shapeKey() {
    const { state } = this;
    const parts = [
      [...state.selection].sort().join(","),
      JSON.stringify(state.sub),
      state.problems.map((p) => p.property).join(","),
      state.arrays.map((a) => `${a.id}:${a.fieldIds.length}`).join(","),
    ];
    for (const field of state.selectedFields()) {
      parts.push(
        field.type,
        (field.boxes || []).length,
        (field.options || []).length,
        Object.keys(field.parts || {}).join("+"),
      );
    }
    return parts.join("|");
  }

  onChange(detail) {
    const key = this.shapeKey();
    if (key !== this.key || detail.structure) {
      this.key = key;
      this.render();
    } else {
      this.sync();
    }
  }

  // --- building blocks ----------------------------------------------------------------------
  bind(el, get, set, { on = "input", parse = (value) => value } = {}) {
    const binding = { el, get };
    this.bindings.push(binding);
    this.write(binding);
    if (set) {
      el.addEventListener(on, () => {
        const value = el.type === "checkbox" ? el.checked : el.value;
        set(parse(value));
      });
    }
    return el;
  }

  write({ el, get }) {
    const value = get();
    if (el.type === "checkbox") el.checked = Boolean(value);
    else if (isFormControl(el)) {
      const text = value === null || value === undefined ? "" : String(value);
      if (el.value !== text) el.value = text;
    } else el.textContent = value ?? "";
  }

  sync() {
    for (const binding of this.bindings) {
      if (binding.el !== document.activeElement) this.write(binding);
    }
    if (this.fieldList) renderFieldList(this);
  }

  render() {
    // Rebuilding must not take the caret away from the input being typed in.
    const active = document.activeElement;
    const focused = this.root.contains(active) ? active.dataset.prop : null;
    const caret =
      focused && typeof active.selectionStart === "number"
        ? [active.selectionStart, active.selectionEnd]
        : null;
    const scroll = this.root.scrollTop;
    const sameSelection = this.lastSelection === [...this.state.selection].join(",");
    this.lastSelection = [...this.state.selection].join(",");

    this.bindings = [];
    this.fieldList = null;
    clear(this.root);
    const problems = this.problemsBox();
    if (problems) this.root.append(problems);
    const fields = this.state.selectedFields();
    if (fields.length === 0) documentPanel(this);
    else if (fields.length === 1) fieldPanel(this, fields[0]);
    else severalFieldsPanel(this, fields);

    if (focused) {
      const again = this.root.querySelector(`[data-prop="${CSS.escape(focused)}"]`);
      if (again) {
        again.focus({ preventScroll: true });
        if (caret && typeof again.setSelectionRange === "function") {
          try {
            again.setSelectionRange(...caret);
          } catch {
            // number inputs have no caret
          }
        }
      }
    }
    this.root.scrollTop = sameSelection ? scroll : 0;
  }

  section(title, ...children) {
    return h(
      "section",
      { class: "ed-section" },
      h("h3", { class: "ed-section-title" }, title),
      ...children,
    );
  }

  row(label, control, hint = null) {
    return h(
      "label",
      { class: "ed-row" },
      h("span", { class: "ed-row-label" }, label),
      control,
      hint && h("small", { class: "ed-hint" }, hint),
    );
  }

  input(prop, attrs = {}) {
    return h("input", {
      class: "ed-input",
      type: "text",
      dataset: { prop },
      autocomplete: "off",
      spellcheck: false,
      ...attrs,
    });
  }

  select(prop, options, attrs = {}) {
    return h(
      "select",
      { class: "ed-input", dataset: { prop }, ...attrs },
      options.map(([value, label]) => h("option", { value }, label)),
    );
  }

  checkbox(prop, label) {
    const box = h("input", { type: "checkbox", dataset: { prop } });
    return [box, h("label", { class: "ed-check" }, box, h("span", {}, label))];
  }

  button(label, onclick, { kind = "", title = null, prop = null } = {}) {
    return h(
      "button",
      {
        type: "button",
        class: `ed-btn ${kind}`,
        title,
        onclick,
        dataset: prop ? { action: prop } : {},
      },
      label,
    );
  }

  // --- problems of the last refused save ------------------------------------------------------
  problemsBox() {
    const { state } = this;
    if (!state.problems.length) return null;
    return h(
      "div",
      { class: "ed-problems", role: "alert" },
      h(
        "div",
        { class: "ed-problems-title" },
        `Not saved: ${state.problems.length} problem${state.problems.length > 1 ? "s" : ""}`,
      ),
      h(
        "ul",
        {},
        state.problems.map((problem) => {
          const field = problem.fieldId ? state.field(problem.fieldId) : null;
          const array = problem.arrayId ? state.arrays.find((a) => a.id === problem.arrayId) : null;
          const where = field
            ? `${field.alias || field.id} · ${problem.property.replace(/^fields\.\d+\.?/, "") || "field"}`
            : array
              ? `array ${array.alias || array.id}`
              : problem.property || "template";
          return h(
            "li",
            {},
            h(
              "button",
              {
                type: "button",
                class: "ed-problem",
                dataset: { fieldId: problem.fieldId || "" },
                onclick: () => {
                  if (field) {
                    state.select([field.id]);
                    this.actions.run("reveal-field", { fieldId: field.id });
                  } else if (array) {
                    state.select(array.fieldIds);
                  }
                },
              },
              h("b", {}, where),
              h("span", {}, problem.message),
            ),
          );
        }),
      ),
    );
  }
}
