// The list of pages with their fields and repeating groups: select one (click, Enter), move it
// (drag, or Alt+↑ and Alt+↓, or its Move buttons), add and remove fields, groups and pages.
// A field outside groups moves between pages; a group's field stays in its group.

import { clear, h } from "#common/dom.js";

const nameOf = {
  page: (page, index) => `Page ${index + 1}: ${page.data.title || "(no title yet)"}`,
  group: (group) => group.data.label || "(no label yet)",
  field: (field) => field.data.label || "(no label yet)",
};

function count(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export class Outline {
  constructor(root, model, { announce }) {
    this.root = root;
    this.model = model;
    this.announce = announce;
    this.dragged = null;
    this.dropAt = null;
    this.onAdded = () => {};
  }

  render() {
    // A re-render keeps the focus where it was (the same item, or the same kind of button).
    const active = document.activeElement;
    const keep =
      active && this.root.contains(active) ? { uid: active.dataset.uid, role: active.dataset.role } : null;
    clear(this.root);
    const list = h("ol", { class: "wfb-pages" });
    this.model.pages.forEach((page, index) => list.append(this.pageItem(page, index)));
    this.root.append(
      list,
      this.addButton("add-page", null, "Add a page", () => this.addPage()),
    );
    if (keep) this.focus(keep.uid, keep.role);
  }

  focus(id, role = "item") {
    const target =
      this.root.querySelector(`[data-uid="${id}"][data-role="${role}"]`) ||
      this.root.querySelector(`[data-uid="${id}"][data-role="item"]`) ||
      this.root.querySelector(`[data-role="${role}"]`);
    if (target) target.focus();
  }

  isSelected(id) {
    return Boolean(this.model.selection && this.model.selection.uid === id);
  }

  addButton(role, id, text, action) {
    return h(
      "button",
      {
        type: "button",
        class: `wfb-btn wfb-btn-small wfb-${role}`,
        dataset: { uid: id, role },
        onclick: action,
      },
      text,
    );
  }

  // The button that selects an item, then the Move and Remove buttons of the selected one.
  row(item, name, detail, { remove }) {
    const selected = this.isSelected(item.uid);
    const problem = Object.keys(item.errors).length > 0;
    const tool = (role, text, label, action) =>
      h(
        "button",
        {
          type: "button",
          class: "wfb-tool",
          dataset: { uid: item.uid, role },
          "aria-label": `${label} ${name}`,
          title: label,
          onclick: action,
        },
        text,
      );
    return [
      h(
        "button",
        {
          type: "button",
          class: "wfb-item",
          dataset: { uid: item.uid, role: "item" },
          "aria-current": selected ? "true" : null,
          "aria-describedby": "wfb-outline-hint",
          onclick: () => this.model.select(item.uid),
          onkeydown: (event) => this.keydown(event, item.uid),
        },
        h("span", { class: "wfb-item-label" }, name),
        h("span", { class: "wfb-item-detail" }, detail),
        problem ? h("span", { class: "wfb-item-problem" }, "Has a problem") : null,
      ),
      selected
        ? h(
            "span",
            { class: "wfb-tools" },
            tool("up", "↑", "Move up", () => this.move(item.uid, -1, "up")),
            tool("down", "↓", "Move down", () => this.move(item.uid, 1, "down")),
            remove ? tool("remove", "✕", "Remove", () => remove(item.uid, name)) : null,
          )
        : null,
    ];
  }

  pageItem(page, index) {
    const name = nameOf.page(page, index);
    const detail = [
      count(page.fields.length, "field"),
      page.groups.length ? count(page.groups.length, "repeating group") : null,
      page.data.showWhen ? "conditional" : null,
    ]
      .filter(Boolean)
      .join(", ");
    const head = h(
      "div",
      {
        class: `wfb-page-head${Object.keys(page.errors).length ? " has-problem" : ""}`,
        draggable: "true",
        dataset: { uid: page.uid },
      },
      this.row(page, name, detail, {
        remove: this.model.pages.length > 1 ? (id, n) => this.removePage(id, n) : null,
      }),
    );
    this.dragSource(head, page.uid);
    head.addEventListener("dragover", (event) => this.dragOver(event, { page }));
    head.addEventListener("drop", (event) => this.drop(event));
    const groups = page.groups.map((group) => this.groupItem(page, group));
    return h(
      "li",
      { class: "wfb-page", dataset: { uid: page.uid } },
      head,
      this.fieldList(page.fields, `Fields of page ${index + 1}`, page),
      this.addButton("add-field", page.uid, `Add a field to page ${index + 1}`, () =>
        this.addField(page.uid),
      ),
      groups.length
        ? h("ol", { class: "wfb-groups", "aria-label": `Repeating groups of page ${index + 1}` }, groups)
        : null,
      this.addButton("add-group", page.uid, `Add a repeating group to page ${index + 1}`, () =>
        this.addGroup(page.uid),
      ),
    );
  }

  groupItem(page, group) {
    const name = nameOf.group(group);
    const item = h(
      "li",
      {
        class: `wfb-group${Object.keys(group.errors).length ? " has-problem" : ""}`,
        dataset: { uid: group.uid, key: group.data.key },
      },
      h(
        "div",
        { class: "wfb-group-head", draggable: "true", dataset: { uid: group.uid } },
        h("span", { class: "wfb-handle", "aria-hidden": "true" }, "⠿"),
        this.row(group, name, `Repeating group, ${count(group.fields.length, "field")}`, {
          remove: (id, n) => this.remove(id, n),
        }),
      ),
      this.fieldList(group.fields, `Fields of ${name}`, page, group),
      this.addButton("add-field", group.uid, `Add a field to ${name}`, () => this.addField(group.uid)),
    );
    this.dragSource(item.firstChild, group.uid);
    item.firstChild.addEventListener("dragover", (event) =>
      this.dragOver(event, { page, group, list: page.groups, item: item.firstChild }),
    );
    item.firstChild.addEventListener("drop", (event) => this.drop(event));
    return item;
  }

  fieldList(fields, label, page, group = null) {
    const list = h("ol", { class: "wfb-fields", "aria-label": label });
    fields.forEach((field, index) => list.append(this.fieldItem(field, index, fields, page, group)));
    list.addEventListener("dragover", (event) => {
      if (event.target === list) this.dragOver(event, { page, group, list: fields, index: fields.length });
    });
    list.addEventListener("drop", (event) => this.drop(event));
    return list;
  }

  fieldItem(field, index, fields, page, group) {
    const type = this.model.typeOf(field).label;
    const item = h(
      "li",
      {
        class: `wfb-field${Object.keys(field.errors).length ? " has-problem" : ""}`,
        draggable: "true",
        dataset: { uid: field.uid, key: field.data.key },
      },
      h("span", { class: "wfb-handle", "aria-hidden": "true" }, "⠿"),
      this.row(field, nameOf.field(field), field.data.showWhen ? `${type}, conditional` : type, {
        remove: (id, n) => this.remove(id, n),
      }),
    );
    this.dragSource(item, field.uid);
    item.addEventListener("dragover", (event) => {
      const box = item.getBoundingClientRect();
      const after = event.clientY > box.top + box.height / 2;
      this.dragOver(event, { page, group, list: fields, index: index + (after ? 1 : 0), item, after });
    });
    item.addEventListener("drop", (event) => this.drop(event));
    return item;
  }

  // --- keyboard and buttons -----------------------------------------------------------------
  keydown(event, id) {
    if (!event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
    event.preventDefault();
    this.move(id, event.key === "ArrowUp" ? -1 : 1, "item");
  }

  move(id, delta, role) {
    if (!this.model.moveBy(id, delta)) return;
    this.focus(id, role);
    this.announce(this.placeOf(id));
  }

  placeOf(id) {
    const found = this.model.find(id);
    if (found.kind === "page")
      return `${found.page.data.title || "The page"} is now page ${found.pageIndex + 1} of ${this.model.pages.length}.`;
    const where =
      found.kind === "field" && found.group
        ? `in ${nameOf.group(found.group)}`
        : `on page ${found.pageIndex + 1}`;
    const index = found.list.indexOf(found.item);
    return `${nameOf[found.kind](found.item)}: ${found.kind} ${index + 1} of ${found.list.length} ${where}.`;
  }

  addField(containerId) {
    const field = this.model.addField(containerId);
    if (field) this.onAdded(field);
  }

  addGroup(pageId) {
    const group = this.model.addGroup(pageId);
    if (group) this.onAdded(group);
  }

  addPage() {
    const page = this.model.addPage();
    this.focus(page.uid);
    this.onPageAdded(page);
    this.announce(`Page ${this.model.pages.indexOf(page) + 1} added.`);
  }

  remove(id, name) {
    const found = this.model.find(id);
    const fields = found.kind === "group" ? found.item.fields : [found.item];
    const uses = fields.flatMap((f) => (f.origin ? this.model.uses[f.origin] || [] : []));
    const also = found.kind === "group" && fields.length ? ` and its ${count(fields.length, "field")}` : "";
    if (
      (uses.length || also) &&
      !window.confirm(
        `Remove “${name}”${also}?${uses.length ? ` Saving removes what uses it too: ${uses.join("; ")}.` : ""}`,
      )
    )
      return;
    this.model.remove(id);
    this.focus(this.model.selection.uid);
    this.announce(`${name} removed.`);
  }

  removePage(id, name) {
    const found = this.model.find(id);
    const fields = found.page.fields.length + found.page.groups.length;
    if (fields && !window.confirm(`Remove ${name} and everything on it?`)) return;
    this.model.removePage(id);
    this.focus(this.model.selection.uid);
    this.announce(`${name} removed.`);
  }

  // --- dragging -----------------------------------------------------------------------------
  dragSource(element, id) {
    element.addEventListener("dragstart", (event) => {
      event.stopPropagation();
      this.dragged = id;
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", id);
      element.classList.add("is-dragged");
    });
    element.addEventListener("dragend", () => {
      this.dragged = null;
      this.dropAt = null;
      element.classList.remove("is-dragged");
      this.clearMarks();
    });
  }

  clearMarks() {
    this.root
      .querySelectorAll(".drop-before, .drop-after, .drop-into")
      .forEach((el) => el.classList.remove("drop-before", "drop-after", "drop-into"));
  }

  // Where the dragged item would go: a page among pages; a group among its page's groups; a
  // field among the fields of a page (from any page) or of its own group.
  dragOver(event, { page, group = null, list = null, index = 0, item = null, after = false }) {
    const moving = this.dragged && this.model.find(this.dragged);
    if (!moving) return;
    let at = null;
    if (moving.kind === "page" && !list) at = { pageIndex: this.model.pages.indexOf(page) };
    else if (moving.kind === "field" && !list && !moving.group)
      at = { list: page.fields, index: page.fields.length };
    else if (moving.kind === "group" && list === page.groups && moving.page === page)
      at = { list, index: list.indexOf(group) + (after ? 1 : 0) };
    else if (moving.kind === "field" && list && list !== page.groups) {
      const fits = moving.group ? moving.group === group : group === null;
      if (fits) at = { list, index };
    }
    if (!at) return;
    event.preventDefault();
    this.clearMarks();
    this.dropAt = at;
    const mark = item || this.root.querySelector(`.wfb-page[data-uid="${page.uid}"]`);
    mark.classList.add(
      item ? (after ? "drop-after" : "drop-before") : moving.kind === "page" ? "drop-before" : "drop-into",
    );
  }

  drop(event) {
    if (!this.dragged || !this.dropAt) return;
    event.preventDefault();
    event.stopPropagation();
    const id = this.dragged;
    const at = this.dropAt;
    this.dragged = null;
    this.dropAt = null;
    this.clearMarks();
    const moving = this.model.find(id);
    if (moving.kind === "page") this.model.movePage(id, at.pageIndex);
    else {
      // The index was counted with the item still in its list.
      const before = moving.list === at.list && moving.list.indexOf(moving.item) < at.index;
      this.model.moveTo(id, at.list, before ? at.index - 1 : at.index);
    }
    this.model.select(id);
    this.announce(this.placeOf(id));
  }
}
