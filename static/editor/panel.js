// The side panel: the document's settings when nothing is selected, the selected field's
// properties, or what can be done with several selected fields.
//
// Inputs are "bound": each has a getter that reads the state, so after any change the panel
// either rebuilds (when what it shows changed shape: another selection, another type) or just
// refreshes the values of the inputs the user is not typing in.

import { clear, h, num } from "../common/dom.js";
import {
  categoryOf,
  fieldTypeNames,
  isSignerType,
  partRects,
  partsOf,
  subLabel,
  typeLabel,
} from "./fields.js";

const DATE_PATTERNS = [
  "MM/DD/YYYY",
  "DD/MM/YYYY",
  "YYYY-MM-DD",
  "MMMM D, YYYY",
  "MMM D, YYYY",
  "D MMMM YYYY",
  "MM/DD/YY",
];
const NUMBER_FORMATS = {
  number: ["decimals", "thousandsSeparator", "decimalSeparator"],
  integer: ["thousandsSeparator"],
  percent: ["decimals", "thousandsSeparator", "decimalSeparator"],
  dollar: ["decimals", "thousandsSeparator", "decimalSeparator", "currencySymbol"],
};
const FORMAT_LABELS = {
  decimals: "Decimals",
  thousandsSeparator: "Thousands separator",
  decimalSeparator: "Decimal separator",
  currencySymbol: "Currency symbol",
};
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
    if (this.fieldList) this.renderFieldList();
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
    if (fields.length === 0) this.documentPanel();
    else if (fields.length === 1) this.fieldPanel(fields[0]);
    else this.multiPanel(fields);

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

  // --- nothing selected: the document ---------------------------------------------------------
  documentPanel() {
    const { state } = this;
    this.root.append(
      h(
        "div",
        { class: "ed-panel-head" },
        h("div", { class: "ed-panel-title" }, "Document"),
        h(
          "div",
          { class: "ed-panel-sub" },
          `${state.pages.length} page${state.pages.length === 1 ? "" : "s"} · `,
          this.bind(
            h("span"),
            () => `${state.fields.length} field${state.fields.length === 1 ? "" : "s"}`,
          ),
        ),
      ),
    );
    this.root.append(
      h(
        "p",
        { class: "ed-empty" },
        "Click ",
        h("b", {}, "Field"),
        " in the toolbar (or press R) and drag on the page to add a field. Click a field to edit it; drag on the page to select several.",
      ),
    );
    this.root.append(this.section("Document style", this.styleControls(null)));

    const search = this.input("fieldFilter", {
      type: "search",
      placeholder: "Filter by alias or type",
    });
    search.value = this.filter;
    search.addEventListener("input", () => {
      this.filter = search.value;
      this.renderFieldList();
    });
    this.fieldList = h("div", { class: "ed-field-list" });
    this.renderFieldList();
    this.root.append(this.section("Fields", search, this.fieldList));

    if (state.arrays.length) {
      this.root.append(
        this.section(
          "Arrays",
          h(
            "div",
            { class: "ed-array-list" },
            state.arrays.map((array) =>
              h(
                "div",
                { class: "ed-array-item" },
                this.bind(
                  this.input(`array.${array.id}.alias`, { "aria-label": "Array alias" }),
                  () => array.alias,
                  (value) => state.updateArray(array.id, (a) => (a.alias = value)),
                ),
                h("span", { class: "ed-muted" }, `${array.fieldIds.length} rows`),
                this.button("Select", () => state.select(array.fieldIds), { kind: "ed-btn-small" }),
              ),
            ),
          ),
        ),
      );
    }

    this.root.append(
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

  renderFieldList() {
    const { state } = this;
    const wanted = this.filter.trim().toLowerCase();
    const list = clear(this.fieldList);
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
                this.actions.run("reveal-field", { fieldId: field.id });
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

  // The five style settings, of the document (``field`` null) or of one field.
  styleControls(field) {
    const { state, config } = this;
    const id = field && field.id;
    const get = (key) => (field ? state.field(id)?.style?.[key] : state.style[key]);
    const set = (key, value) => {
      if (!field) state.setDocumentStyle(key, value);
      else
        state.updateField(
          id,
          (f) => {
            const style = { ...(f.style || {}) };
            if (value === null || value === "" || Number.isNaN(value)) delete style[key];
            else style[key] = value;
            if (Object.keys(style).length) f.style = style;
            else delete f.style;
          },
          { coalesce: `style:${id}:${key}` },
        );
    };
    const inherited = (key, fallback) => (field ? state.style[key] || fallback : fallback);
    const prefix = field ? "style" : "docStyle";

    const family = this.bind(
      this.input(`${prefix}.fontFamily`, {
        list: "ed-font-families",
        placeholder: inherited("fontFamily", "Noto Sans"),
      }),
      () => get("fontFamily"),
      (value) => set("fontFamily", value.trim() ? value : null),
    );
    const size = this.bind(
      this.input(`${prefix}.fontSize`, {
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
    const colorText = this.bind(
      this.input(`${prefix}.textColor`, {
        placeholder: inherited("textColor", "#000000"),
        maxlength: 7,
      }),
      () => get("textColor"),
      (value) => set("textColor", value.trim() || null),
      { on: "change" },
    );
    const swatch = this.bind(
      h("input", { type: "color", class: "ed-swatch", "aria-label": "Pick a colour" }),
      () => get("textColor") || inherited("textColor", "#000000"),
      (value) => set("textColor", value.toUpperCase()),
    );
    const alignment = this.bind(
      this.select(`${prefix}.alignment`, [
        ["", field ? "Document default" : "Left (default)"],
        ...config.alignments.map((a) => [a, cap(a)]),
      ]),
      () => get("alignment") || "",
      (value) => set("alignment", value || null),
      { on: "change" },
    );
    const weight = this.bind(
      this.select(`${prefix}.fontWeight`, [
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
      h("div", { class: "ed-span2" }, this.row("Font", family)),
      this.row("Size (pt)", size),
      this.row("Colour", h("div", { class: "ed-color" }, swatch, colorText)),
      this.row("Alignment", alignment),
      this.row("Weight", weight),
    );
  }

  // --- one field ------------------------------------------------------------------------------
  fieldPanel(field) {
    const { state } = this;
    const id = field.id;
    const current = () => state.field(id) || field;
    const update = (change, key) => state.updateField(id, change, { coalesce: `${key}:${id}` });
    const member = state.arrayOf(id);

    this.root.append(
      h(
        "div",
        { class: "ed-panel-head" },
        h("span", { class: `ed-chip cat-${categoryOf(field.type)}` }, typeLabel(field.type)),
        this.bind(h("div", { class: "ed-panel-title" }), () => current().alias || "(no alias)"),
        h(
          "div",
          { class: "ed-panel-sub" },
          `Page ${(field.page || 0) + 1} · id `,
          h("code", {}, id),
        ),
      ),
    );

    const alias = this.bind(
      this.input("alias", { required: true }),
      () => current().alias,
      (value) => update((f) => (f.alias = value), "alias"),
    );
    const type = this.bind(
      this.select(
        "type",
        fieldTypeNames().map((t) => [t, typeLabel(t)]),
      ),
      () => current().type,
      (value) => state.setType(id, value),
      { on: "change" },
    );
    const label = this.bind(
      this.input("label", { placeholder: "Shown to people filling a webform" }),
      () => current().label,
      (value) =>
        update((f) => {
          if (value) f.label = value;
          else delete f.label;
        }, "label"),
    );
    const [readOnlyBox, readOnly] = this.checkbox("readOnly", "Read-only in interactive PDFs");
    this.bind(
      readOnlyBox,
      () => current().readOnly,
      (value) =>
        update((f) => {
          if (value) f.readOnly = true;
          else delete f.readOnly;
        }, "readOnly"),
      { on: "change" },
    );
    // A signer field is signed in a packet: no fill value, style or read-only setting.
    const signer = isSignerType(field.type);
    let aliasHint = "The key of this field's value in the fill data.";
    if (member) aliasHint = "Filled from the array's alias; this name labels the row.";
    if (signer) aliasHint = "Signed in a packet: a signer gets it by this field's id.";
    const general = [
      this.row("Alias", alias, aliasHint),
      this.row("Type", type, member ? "Changes every field of the array." : null),
      this.row("Label", label),
      ...(signer ? [] : [readOnly]),
    ];
    if (field.type === "longText") {
      const [autoBox, auto] = this.checkbox("autoSize", "Shrink text until it fits");
      this.bind(
        autoBox,
        () => current().autoSize,
        (value) =>
          update((f) => {
            if (value) f.autoSize = true;
            else delete f.autoSize;
          }, "autoSize"),
        { on: "change" },
      );
      general.push(auto);
    }
    this.root.append(this.section("Field", ...general));

    this.root.append(
      this.section(
        "Position",
        h(
          "div",
          { class: "ed-grid ed-grid4" },
          ["x", "y", "width", "height"].map((key) =>
            this.row(
              { x: "X", y: "Y", width: "W", height: "H" }[key],
              this.bind(
                this.input(`rect.${key}`, { type: "number", step: 0.5 }),
                () => num(current().rect[key]),
                (value) => {
                  const number = Number(value);
                  if (value === "" || !Number.isFinite(number)) return this.sync();
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
      this.root.append(this.boxesSection(field));
    if (field.type === "radioGroup") this.root.append(this.optionsSection(field));
    if (partsOf(field.type).length) this.root.append(this.partsSection(field));
    const format = this.formatSection(field);
    if (format) this.root.append(format);

    const rotation = this.bind(
      this.select("rotation", [
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
      this.root.append(
        this.section("Style", this.styleControls(field), this.row("Text rotation", rotation)),
      );

    if (member) this.root.append(this.arraySection(member));

    this.root.append(
      h(
        "div",
        { class: "ed-actions" },
        this.button("Duplicate", () => this.actions.run("duplicate"), {
          title: "Ctrl/⌘+D",
          prop: "duplicate",
        }),
        this.button("Delete field", () => this.actions.run("delete"), {
          kind: "ed-btn-danger",
          title: "Delete",
          prop: "delete",
        }),
      ),
    );
  }

  boxesSection(field) {
    const { state } = this;
    const isChars = field.type === "charList";
    const count = this.bind(
      this.input("boxCount", { type: "number", min: 1, max: 200, step: 1 }),
      () => (state.field(field.id)?.boxes || []).length,
      (value) => {
        const n = Math.round(Number(value));
        if (!Number.isFinite(n) || n < 1 || n > 200) return this.sync();
        state.setBoxCount(field.id, n);
      },
      { on: "change" },
    );
    return this.section(
      isChars ? "Character boxes" : "Lines",
      this.row(
        isChars ? "Number of boxes" : "Number of lines",
        count,
        isChars
          ? "One character per box; the field is split into equal boxes. Select a box on the page to move or resize it alone."
          : "One line of text per box, top to bottom. Select a line on the page to adjust it.",
      ),
    );
  }

  optionsSection(field) {
    const { state } = this;
    const id = field.id;
    const rows = field.options.map((option, index) =>
      h(
        "div",
        {
          class: `ed-sub-row${state.sub && state.sub.kind === "options" && state.sub.key === index ? " is-selected" : ""}`,
        },
        this.bind(
          this.input(`option.${index}.id`, { "aria-label": `Option ${index + 1} value` }),
          () => state.field(id)?.options[index]?.id,
          (value) =>
            state.updateField(id, (f) => (f.options[index].id = value), {
              coalesce: `option:${id}:${index}`,
            }),
        ),
        this.button("Select", () => state.selectSub(id, "options", index), {
          kind: "ed-btn-small",
        }),
        this.button(
          "×",
          () => {
            state.selectSub(id, "options", index);
            state.deleteSub();
          },
          { kind: "ed-btn-small ed-btn-icon", title: "Remove this option" },
        ),
      ),
    );
    const splitCount = this.input("splitCount", {
      type: "number",
      min: 1,
      max: 50,
      value: String(field.options.length),
    });
    const direction = this.select("splitDirection", [
      ["columns", "side by side"],
      ["rows", "stacked"],
    ]);
    return this.section(
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
        this.button("Draw options", () => this.actions.run("draw-options", { fieldId: id }), {
          title: "Drag on the page to add an option",
          prop: "draw-options",
        }),
        h("span", { class: "ed-muted" }, "or split into"),
        splitCount,
        direction,
        this.button(
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

  partsSection(field) {
    const { state } = this;
    const id = field.id;
    const [toggle, toggleRow] = this.checkbox("separateParts", "Separate box for each part");
    const rectsOf = (f) => partRects(state.viewport(f.page || 0), f.type, f.rect);
    this.bind(
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
            h(
              "div",
              { class: `ed-sub-row${state.sub && state.sub.key === name ? " is-selected" : ""}` },
              h("span", { class: "ed-sub-row-name" }, subLabel(field, "parts", name)),
              this.button("Select", () => state.selectSub(id, "parts", name), {
                kind: "ed-btn-small",
              }),
              this.button(
                "×",
                () => {
                  state.selectSub(id, "parts", name);
                  state.deleteSub();
                },
                { kind: "ed-btn-small ed-btn-icon", title: "Leave this part out" },
              ),
            ),
          ),
        ),
        this.button("Reset layout", () => state.setParts(id, true, rectsOf)),
      );
    }
    return this.section("Parts", ...children);
  }

  formatSection(field) {
    const { state } = this;
    const id = field.id;
    const setFormat = (key, value) =>
      state.updateField(
        id,
        (f) => {
          const format = { ...(f.format || {}) };
          if (value === null || value === "" || Number.isNaN(value)) delete format[key];
          else format[key] = value;
          if (Object.keys(format).length) f.format = format;
          else delete f.format;
        },
        { coalesce: `format:${id}:${key}` },
      );
    const get = (key) => state.field(id)?.format?.[key];
    if (field.type === "date") {
      const pattern = this.bind(
        this.input("format.pattern", { list: "ed-date-patterns", placeholder: "MM/DD/YYYY" }),
        () => get("pattern"),
        (value) => setFormat("pattern", value.trim() ? value : null),
      );
      return this.section(
        "Format",
        this.row("Date pattern", pattern, "YYYY, YY, MMMM, MMM, MM, M, DD, D, dddd, ddd."),
        h(
          "datalist",
          { id: "ed-date-patterns" },
          DATE_PATTERNS.map((p) => h("option", { value: p })),
        ),
      );
    }
    const keys = NUMBER_FORMATS[field.type];
    if (!keys) return null;
    return this.section(
      "Format",
      h(
        "div",
        { class: "ed-grid" },
        keys.map((key) =>
          this.row(
            FORMAT_LABELS[key],
            this.bind(
              this.input(`format.${key}`, {
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

  arraySection(member) {
    const { state } = this;
    const { array, row } = member;
    return this.section(
      "Array",
      this.row(
        "Array alias",
        this.bind(
          this.input("arrayAlias"),
          () => state.arrays.find((a) => a.id === array.id)?.alias,
          (value) => state.updateArray(array.id, (a) => (a.alias = value)),
        ),
        `Row ${row + 1} of ${array.fieldIds.length}. The fill data sends a list under this alias.`,
      ),
      h(
        "div",
        { class: "ed-inline" },
        this.button("Select all rows", () => state.select(array.fieldIds)),
        this.button("Unwrap", () => state.unwrapArray(array.id), {
          title: "Make the rows separate fields again",
          prop: "unwrap",
        }),
      ),
    );
  }

  // --- several fields -------------------------------------------------------------------------
  multiPanel(fields) {
    const { state } = this;
    const ids = fields.map((f) => f.id);
    const types = new Set(fields.map((f) => f.type));
    const onePage = new Set(fields.map((f) => f.page || 0)).size === 1;
    this.root.append(
      h(
        "div",
        { class: "ed-panel-head" },
        h("div", { class: "ed-panel-title" }, `${fields.length} fields selected`),
        h(
          "div",
          { class: "ed-panel-sub" },
          types.size === 1 ? typeLabel([...types][0]) : "Mixed types",
        ),
      ),
    );
    const type = this.select("type", [
      ...(types.size > 1 ? [["", "Mixed"]] : []),
      ...fieldTypeNames().map((t) => [t, typeLabel(t)]),
    ]);
    type.value = types.size === 1 ? [...types][0] : "";
    type.addEventListener("change", () => type.value && state.setType(ids, type.value));
    this.root.append(this.section("Type", this.row("Type of all", type)));

    const wrap = this.button("Wrap in array", () => this.actions.run("wrap-array"), {
      kind: "ed-btn-primary",
      prop: "wrap-array",
      title: "One list value fills these fields, top to bottom",
    });
    const inArray = fields.some((f) => state.arrayOf(f.id));
    this.root.append(
      this.section(
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
        this.button(label, () => state.arrange(how), {
          kind: "ed-btn-small",
          prop: `arrange-${how}`,
        });
      this.root.append(
        this.section(
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
    this.root.append(
      h(
        "div",
        { class: "ed-actions" },
        this.button("Duplicate", () => this.actions.run("duplicate"), { prop: "duplicate" }),
        this.button(`Delete ${fields.length} fields`, () => this.actions.run("delete"), {
          kind: "ed-btn-danger",
          prop: "delete",
        }),
      ),
    );
  }
}

function cap(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
