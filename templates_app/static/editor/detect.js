// "Detect fields": asks the server (editor/detect/, templates_app/editor.py) for the fields it
// finds on this page or every page, and shows them as a draft: dashed boxes over the pages and a
// list beside them, where each can be accepted (its checkbox), fixed (alias and type) or deleted.
// Nothing is added to the template until "Add accepted fields", which adds them as one undoable
// change; the editor's ordinary Save stores them. With "Only where there is no field yet", places
// that already have a field are left out (a PDF that has some fields).

import { clear, h } from "#common/dom.js";
import { rectToBox } from "#common/page-box.js";
import { fieldTypeNames, isSignerType, newId, typeLabel } from "./fields.js";

export class FieldDetector {
  constructor(section, { api, state, view, toast }) {
    this.section = section;
    this.api = api;
    this.state = state;
    this.view = view;
    this.toast = toast;
    this.drafts = []; // {field, accepted}
    this.list = section.querySelector(".ed-detect-list");
    this.message = section.querySelector(".ed-detect-message");
    this.missing = section.querySelector("#ed-detect-missing");
    this.runButton = section.querySelector("[data-detect='run']");
    this.acceptButton = section.querySelector("[data-detect='accept']");
    this.runButton.addEventListener("click", () => this.run());
    this.acceptButton.addEventListener("click", () => this.accept());
    section.querySelector("[data-detect='discard']").addEventListener("click", () => {
      this.setDrafts([]);
      this.say("The draft was discarded.");
    });
    section.querySelector("[data-detect='close']").addEventListener("click", () => this.close());
    view.addEventListener("zoom", () => this.drawOnPages());
    view.addEventListener("rendered", () => this.drawOnPages());
    // The toolbar's button that opens and closes the panel says which it is.
    this.toggles = document.querySelectorAll(`[aria-controls='${section.id}']`);
    this.zoomed = null; // {from, to}: the zoom the panel changed, to give back on closing
    this.showOpen();
    this.showButtons();
  }

  get isOpen() {
    return !this.section.hidden;
  }

  open() {
    this.section.hidden = false;
    this.showOpen();
    this.fitPages();
    this.runButton.focus();
  }

  close() {
    this.section.hidden = true;
    this.showOpen();
    this.setDrafts([]);
    // The page gets its room back, and its zoom if the person did not change it meanwhile.
    if (this.zoomed && this.view.zoom === this.zoomed.to) {
      this.view.setZoom(Math.min(this.zoomed.from, this.view.fitWidthZoom()));
    }
    this.zoomed = null;
  }

  showOpen() {
    for (const toggle of this.toggles) toggle.setAttribute("aria-expanded", String(this.isOpen));
  }

  // Beside the panel the pages are narrower: a page wider than what is left is zoomed out to
  // fit, so the panel never hides part of it (its draft boxes included).
  fitPages() {
    const fit = this.view.fitWidthZoom();
    if (this.view.zoom <= fit) return;
    const from = this.view.zoom;
    this.view.setZoom(fit);
    this.zoomed = { from, to: this.view.zoom };
  }

  say(text, kind = "") {
    this.message.textContent = text;
    this.message.className = `ed-detect-message ${kind}`;
  }

  pages() {
    const which = this.section.querySelector("input[name='ed-detect-pages']:checked").value;
    return which === "all" ? null : [this.view.currentPage];
  }

  async run() {
    const pages = this.pages();
    const body = { onlyMissing: this.missing.checked };
    if (pages) body.pages = pages;
    this.runButton.disabled = true;
    this.section.dataset.state = "loading";
    this.say(pages ? `Looking for fields on page ${pages[0] + 1}…` : "Looking for fields…");
    const answer = await this.api.request(this.api.urls.detect, { method: "POST", body });
    this.runButton.disabled = false;
    this.section.dataset.state = "ready";
    if (!answer.ok) {
      const detail = (answer.body.fields || [])[0];
      this.say((detail && detail.message) || answer.body.message || "Detection failed.", "is-error");
      return;
    }
    const fields = answer.body.fields;
    this.setDrafts(fields.map((field) => ({ field, accepted: true })));
    this.say(
      fields.length
        ? `${fields.length} field${fields.length > 1 ? "s" : ""} found: a draft, not added yet.`
        : "No fields found.",
    );
  }

  setDrafts(drafts) {
    this.drafts = drafts;
    this.renderList();
    this.drawOnPages();
    this.showButtons();
  }

  showButtons() {
    this.acceptButton.disabled = !this.drafts.some((draft) => draft.accepted);
    this.section.querySelector("[data-detect='discard']").disabled = !this.drafts.length;
  }

  renderList() {
    clear(this.list);
    this.drafts.forEach((draft, index) => this.list.append(this.row(draft, index)));
  }

  row(draft, index) {
    const { field } = draft;
    const id = `ed-draft-${index}`;
    const types = fieldTypeNames().filter((type) => type !== "radioGroup");
    const select = h(
      "select",
      { id: `${id}-type`, class: "ed-select", "aria-label": `Type of ${field.alias}` },
      types.map((type) =>
        h("option", { value: type, selected: type === field.type }, typeLabel(type)),
      ),
    );
    select.addEventListener("change", () => {
      field.type = select.value;
      // Boxes belong to character boxes only; a signer's field has no text style.
      if (field.type !== "charList") {
        delete field.boxes;
        delete field.maxLength;
      }
      if (isSignerType(field.type)) delete field.style;
      this.drawOnPages();
    });
    const alias = h("input", {
      id: `${id}-alias`,
      class: "ed-input",
      type: "text",
      value: field.alias,
      spellcheck: "false",
      "aria-label": `Alias of draft field ${index + 1}`,
    });
    alias.addEventListener("input", () => {
      field.alias = alias.value.trim();
      this.drawOnPages();
    });
    const accept = h("input", { id: `${id}-accept`, type: "checkbox", checked: draft.accepted });
    accept.addEventListener("change", () => {
      draft.accepted = accept.checked;
      this.drawOnPages();
      this.showButtons();
    });
    const remove = h(
      "button",
      {
        type: "button",
        class: "ed-btn ed-btn-small ed-btn-danger",
        "aria-label": `Delete draft field ${field.alias}`,
      },
      "Delete",
    );
    remove.addEventListener("click", () => {
      this.setDrafts(this.drafts.filter((other) => other !== draft));
      const rows = this.list.querySelectorAll("li");
      (rows[Math.min(index, rows.length - 1)]?.querySelector("input") || this.runButton).focus();
    });
    return h(
      "li",
      { class: "ed-draft-row", dataset: { draft: String(index) } },
      h("label", { for: `${id}-accept`, class: "ed-draft-accept" }, accept, ` Page ${field.page + 1}`),
      alias,
      select,
      remove,
    );
  }

  // Dashed boxes over the pages, one per draft field; not part of the template, not clickable.
  drawOnPages() {
    for (const p of this.view.pages) {
      for (const el of p.overlay.querySelectorAll(".ed-draft")) el.remove();
    }
    this.drafts.forEach((draft, index) => {
      const p = this.view.pages[draft.field.page];
      if (!p || !p.viewport) return;
      const box = rectToBox(p.viewport, draft.field.rect);
      p.overlay.append(
        h(
          "div",
          {
            class: `ed-draft${draft.accepted ? "" : " is-rejected"}`,
            dataset: { draft: String(index) },
            title: `Draft: ${draft.field.alias} · ${typeLabel(draft.field.type)}`,
            style: {
              left: `${box.left}px`,
              top: `${box.top}px`,
              width: `${box.width}px`,
              height: `${box.height}px`,
            },
          },
          box.width >= 28 && h("span", { class: "ed-draft-name" }, draft.field.alias),
        ),
      );
    });
  }

  // The accepted drafts become fields of the template (one undo step); the rest stay a draft.
  accept() {
    const taken = this.state.takenAliases();
    const chosen = this.drafts.filter((draft) => draft.accepted);
    // Each alias is a key of the fill data: none empty, none used twice.
    const problem = chosen.find((draft) => {
      const alias = draft.field.alias;
      const bad = !alias || taken.has(alias);
      taken.add(alias);
      return bad;
    });
    if (problem) {
      const alias = problem.field.alias;
      this.say(
        alias ? `The alias “${alias}” is used already.` : "Every field needs an alias.",
        "is-error",
      );
      return;
    }
    const created = chosen.map((draft) => ({ ...structuredClone(draft.field), id: newId("f") }));
    this.state.edit(
      () => {
        this.state.fields.push(...created);
        this.state.selection = new Set(created.map((field) => field.id));
        this.state.sub = null;
      },
      { structure: true },
    );
    this.state.emit({ data: false, selection: true });
    this.setDrafts(this.drafts.filter((draft) => !draft.accepted));
    const count = created.length;
    this.say(`${count} field${count > 1 ? "s" : ""} added: save to keep them.`);
    this.toast(`${count} detected field${count > 1 ? "s" : ""} added`);
  }
}
