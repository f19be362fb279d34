// The settings of the selected page or field, drawn from the catalogue the server sends: a
// field shows the settings of its type only, each with its label, help and the problem a save
// found with it. Typing changes the model at once (the preview follows).

import { clear, h } from "#common/dom.js";
import { conditionEditor } from "./condition.js";
import { getPath } from "./paths.js";

const COMPLEX = new Set(["fullName", "usAddress", "phone"]);

function optionsText(options) {
  return (options || [])
    .map((o) => (o.label && o.label !== o.value ? `${o.value}: ${o.label}` : o.value))
    .join("\n");
}

function optionsFrom(text) {
  return text
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => {
      const at = line.indexOf(":");
      const value = (at < 0 ? line : line.slice(0, at)).trim();
      const label = at < 0 ? "" : line.slice(at + 1).trim();
      return { value, label: label || value };
    });
}

// A whole number when it is one, else the text (the server says what is wrong with it).
function countFrom(text) {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

function jsonFrom(text) {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text; // kept as typed: the save names the problem
  }
}

// A setting typed as JSON: shown as JSON, set to what the text parses to (see jsonFrom).
function jsonInput(common, value, set) {
  const input = h("textarea", {
    ...common,
    rows: 3,
    spellcheck: "false",
    oninput: () => set(jsonFrom(input.value)),
  });
  input.value = value === undefined ? "" : JSON.stringify(value);
  return input;
}

export class Panel {
  constructor(root, title, model) {
    this.root = root;
    this.title = title;
    this.model = model;
  }

  render() {
    // Drawn again for the same item (its type changed), the focus stays on its setting.
    const active = document.activeElement;
    const keep =
      active && this.root.contains(active) && this.shown === this.model.selection?.uid
        ? active.dataset.path
        : null;
    this.shown = this.model.selection?.uid;
    clear(this.root);
    this.draw();
    if (keep) this.focusSetting(keep);
  }

  draw() {
    const found = this.model.selected();
    if (!found) {
      this.title.textContent = "Settings";
      this.root.append(h("p", { class: "wfb-hint" }, "Choose a page or a field in the list."));
      return;
    }
    if (found.kind === "field") this.renderField(found);
    else if (found.kind === "group") this.renderGroup(found);
    else this.renderPage(found);
  }

  focusFirst() {
    const first = this.root.querySelector("input, select, textarea");
    if (first) first.focus();
  }

  focusSetting(path) {
    const input = this.root.querySelector(`[data-path="${path}"]`);
    if (input) input.focus();
  }

  renderPage({ page, pageIndex }) {
    this.title.textContent = `Settings of page ${pageIndex + 1}`;
    this.renderSettings(page, this.model.catalogue.page, [
      `${page.fields.length} field${page.fields.length === 1 ? "" : "s"} on this page.`,
    ]);
  }

  renderGroup({ group }) {
    this.title.textContent = `Settings of ${group.data.label || "the new repeating group"}`;
    this.renderSettings(group, this.model.catalogue.group, [
      "People give its fields once per entry, and add or remove entries.",
    ]);
  }

  renderSettings(item, names, notes) {
    const form = h("div", { class: "wfb-settings" });
    const general = item.errors[""] || item.errors.fields;
    if (general) form.append(h("p", { class: "wfb-error", role: "alert" }, general));
    for (const name of names) form.append(this.setting(item, this.look(name), { type: null }));
    for (const note of notes) form.append(h("p", { class: "wfb-hint" }, note));
    this.root.append(form);
  }

  renderField({ field }) {
    const type = this.model.typeOf(field);
    this.title.textContent = `Settings of ${field.data.label || "the new field"}`;
    const form = h("div", { class: "wfb-settings", dataset: { type: type.name } });
    const [first] = type.settings.length ? type.settings : ["label"];
    form.append(this.setting(field, this.look(first), { type: type.name }));
    // The type right after the label: what the field asks for, then what it is. The settings
    // that follow are the type's, drawn again when it changes (the type's select stays, so
    // that typing a type's name in it works).
    form.append(this.typeSetting(field, type), h("div", { class: "wfb-settings", id: "wfb-type-settings" }));
    this.root.append(form);
    this.renderTypeSettings();
  }

  look(name) {
    return this.model.catalogue.looks[name] || { label: name, input: "json", path: name };
  }

  renderTypeSettings() {
    const found = this.model.selected();
    const box = document.getElementById("wfb-type-settings");
    if (!found || found.kind !== "field" || !box) return;
    const field = found.field;
    const type = this.model.typeOf(field);
    clear(box);
    box.closest("[data-type]").dataset.type = type.name;
    if (field.errors[""]) box.append(h("p", { class: "wfb-error", role: "alert" }, field.errors[""]));
    for (const name of type.settings.slice(1))
      box.append(this.setting(field, this.look(name), { type: type.name }));
    const uses = field.origin ? this.model.uses[field.origin] || [] : [];
    if (uses.length) box.append(h("p", { class: "wfb-hint" }, `This field ${uses.join("; ")}.`));
  }

  // The type: a palette of buttons by category (the catalogue's), the type's own pressed.
  // Buttons, so a keyboard reaches each with Tab and picks it with Enter or Space.
  typeSetting(field, type) {
    const id = "wfb-set-type";
    const allowed = new Set(this.model.typesFor(field).map((t) => t.name));
    const label = new Map(this.model.catalogue.types.map((t) => [t.name, t.label]));
    const error = field.errors.type;
    const palette = h(
      "fieldset",
      { id, class: "wfb-palette", dataset: { path: "type" }, "aria-describedby": `${id}-error` },
      h("legend", { class: "wfb-label" }, "Type"),
    );
    const press = (name) => {
      for (const button of palette.querySelectorAll("button[data-type]"))
        button.setAttribute("aria-pressed", String(button.dataset.type === name));
    };
    for (const [n, category] of (this.model.catalogue.typeCategories || []).entries()) {
      const names = category.types.filter((name) => allowed.has(name));
      if (!names.length) continue;
      const titleId = `${id}-category-${n}`;
      palette.append(
        h(
          "div",
          { class: "wfb-palette-group", role: "group", "aria-labelledby": titleId },
          h("p", { class: "wfb-palette-title", id: titleId }, category.label),
          names.map((name) =>
            h(
              "button",
              {
                type: "button",
                class: "wfb-type",
                dataset: { type: name },
                "aria-pressed": String(name === type.name),
                onclick: () => {
                  press(name);
                  this.model.setType(field.uid, name);
                },
              },
              label.get(name),
            ),
          ),
        ),
      );
    }
    return h(
      "div",
      { class: `wfb-setting${error ? " has-error" : ""}` },
      palette,
      h("p", { class: "wfb-error", id: `${id}-error`, hidden: !error }, error || ""),
    );
  }

  row(id, label, input, { help = "", error = "", required = false, inline = false } = {}) {
    const helpId = `${id}-help`;
    const errorId = `${id}-error`;
    const described = [help ? helpId : null, errorId].filter(Boolean).join(" ");
    input.setAttribute("aria-describedby", described);
    if (error) input.setAttribute("aria-invalid", "true");
    const labelEl = h(
      "label",
      { for: id, class: "wfb-label" },
      label,
      required ? h("span", { class: "wfb-required" }, " (required)") : null,
    );
    return h(
      "div",
      { class: `wfb-setting${inline ? " wfb-setting-inline" : ""}${error ? " has-error" : ""}` },
      inline ? [input, labelEl] : [labelEl, input],
      help ? h("p", { class: "wfb-help", id: helpId }, help) : null,
      h("p", { class: "wfb-error", id: errorId, hidden: !error }, error || ""),
    );
  }

  // One setting, drawn by its look's input.
  setting(item, look, { type }) {
    const id = `wfb-set-${look.path.replaceAll(".", "-")}`;
    const value = getPath(item.data, look.path);
    const error = Object.entries(item.errors)
      .filter(([path]) => path === look.path || path.startsWith(`${look.path}.`))
      .map(([, message]) => message)
      .join(" ");
    const set = (next) => this.model.set(item.uid, look.path, next);
    const text = (v) => (v === undefined || v === null ? "" : String(v));
    const optional = (v) => (v === "" && !look.required ? undefined : v);
    let input;
    let inline = false;
    let help = look.help || "";
    const common = { id, class: "wfb-input", dataset: { path: look.path }, required: look.required || null };
    switch (look.input) {
      case "checkbox":
        inline = true;
        input = h("input", {
          ...common,
          class: "wfb-check",
          type: "checkbox",
          checked: Boolean(value),
          onchange: () => set(input.checked),
        });
        break;
      case "textarea":
        input = h("textarea", { ...common, rows: 3, oninput: () => set(optional(input.value)) });
        input.value = text(value);
        break;
      case "number":
      case "count":
        input = h("input", {
          ...common,
          type: "text",
          inputmode: look.input === "count" ? "numeric" : "decimal",
          value: text(value),
          oninput: () => set(look.input === "count" ? countFrom(input.value) : optional(input.value.trim())),
        });
        break;
      case "select":
        input = h(
          "select",
          { ...common, onchange: () => set(input.value) },
          (look.choices || []).map((c) =>
            h("option", { value: c.value, selected: c.value === value }, c.label),
          ),
        );
        break;
      case "options":
        input = h("textarea", { ...common, rows: 4, oninput: () => set(optionsFrom(input.value)) });
        input.value = optionsText(value);
        break;
      case "condition":
        return conditionEditor({
          id,
          earlier: this.model.fieldsBefore(item.uid).filter((f) => f.data.key),
          value,
          set,
          label: look.label,
          help,
          error,
        });
      case "default":
        if (type === "checkbox") {
          inline = true;
          input = h("input", {
            ...common,
            class: "wfb-check",
            type: "checkbox",
            checked: value === true,
            onchange: () => set(input.checked ? true : undefined),
          });
          return this.row(id, "Ticked at first", input, { help: "", error, inline });
        }
        if (COMPLEX.has(type) || typeof value === "object") {
          input = jsonInput(common, value, set);
          help = help || "As JSON.";
        } else {
          input = h("input", {
            ...common,
            type: type === "date" ? "date" : "text",
            value: text(value),
            oninput: () => set(optional(input.value)),
          });
        }
        break;
      case "json":
        input = jsonInput(common, value, set);
        help = help || "As JSON.";
        break;
      default: // text, key
        input = h("input", {
          ...common,
          type: "text",
          value: text(value),
          spellcheck: look.input === "key" ? "false" : null,
          autocomplete: "off",
          oninput: () => set(optional(input.value)),
        });
    }
    return this.row(id, look.label, input, { help, error, required: look.required, inline });
  }

  // What typing elsewhere changed in the panel shown: a key made from the label, the title; a
  // problem the save named goes once its setting is changed.
  sync() {
    const found = this.model.selected();
    if (!found) return;
    const item = found.item;
    const key = this.root.querySelector('[data-path="key"]');
    if (key && key !== document.activeElement && key.value !== (item.data.key || "")) {
      key.value = item.data.key || "";
    }
    if (found.kind === "field") this.title.textContent = `Settings of ${item.data.label || "the new field"}`;
    if (found.kind === "group")
      this.title.textContent = `Settings of ${item.data.label || "the new repeating group"}`;
    for (const row of this.root.querySelectorAll(".wfb-setting.has-error")) {
      const input = row.querySelector("[data-path]");
      const path = input.dataset.path;
      if (Object.keys(item.errors).some((p) => p === path || p.startsWith(`${path}.`))) continue;
      row.classList.remove("has-error");
      input.removeAttribute("aria-invalid");
      const error = row.querySelector(".wfb-error");
      error.hidden = true;
      error.textContent = "";
    }
  }
}
