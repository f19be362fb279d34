// The webform being built: its name and pages of fields and repeating groups, in the
// definition's JSON (each field and group with the "row" of its saved row), the selection, and
// the problems a refused save named (put there by problems.js). Every change goes through a
// method here, which tells the listeners; nothing here touches the page.

import { setPath } from "./paths.js";

let lastUid = 0;
const uid = () => `u${++lastUid}`;

// A key made from a label, as people would write it: "Email address" -> "emailAddress",
// "Pet's name" -> "petsName", "Teléfono" -> "telefono" (accents and apostrophes join, not split).
export function keyFromLabel(label) {
  const words = label
    .normalize("NFKD")
    .replace(/[\u0300-\u036f'’]/g, "")
    .replace(/[^A-Za-z0-9]+/g, " ")
    .trim()
    .split(" ");
  const key = words
    .filter(Boolean)
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0].toUpperCase() + w.slice(1).toLowerCase()))
    .join("");
  return (/^[A-Za-z]/.test(key) ? key : key ? `f${key}` : "").slice(0, 60);
}

export class Model {
  constructor(catalogue) {
    this.catalogue = catalogue;
    this.types = new Map(catalogue.types.map((t) => [t.name, t]));
    this.name = "";
    this.pages = [];
    this.uses = {};
    this.selection = null; // {kind: "page" | "field", uid}
    this.dirty = false;
    this.version = 0; // counts the changes, so that a save knows whether any came during it
    this.problems = []; // [{property, message}] that belong to no page or field
    this.nameError = "";
    this.listeners = new Set();
  }

  onChange(listener) {
    this.listeners.add(listener);
  }

  // structural: the list of pages and fields changed (not only a setting).
  changed({ structural = false, dirty = true, selection = false, retype = false } = {}) {
    if (dirty) {
      this.dirty = true;
      this.version += 1;
    }
    for (const listener of this.listeners) listener({ structural, selection, retype });
  }

  // The state the server sends (on opening, and after a save). An item at the same place as
  // before keeps its uid, so the selection and the focus stay where they were.
  load(state) {
    const selected = this.selectedPlace();
    const before = this.sentShape();
    this.name = state.name;
    this.uses = state.uses || {};
    const field = (raw, id) => {
      const { row, ...data } = raw;
      return { uid: id || uid(), row, data, autoKey: false, origin: data.key, errors: {} };
    };
    this.pages = state.pages.map((raw, p) => {
      const { fields, groups, ...data } = raw;
      const was = before[p] || { fields: [], groups: [] };
      return {
        uid: was.uid || uid(),
        data,
        errors: {},
        fields: (fields || []).map((f, n) => field(f, was.fields[n])),
        groups: (groups || []).map((rawGroup, g) => {
          const { row, fields: members, ...groupData } = rawGroup;
          const wasGroup = was.groups[g] || { fields: [] };
          return {
            uid: wasGroup.uid || uid(),
            row,
            data: groupData,
            autoKey: false,
            errors: {},
            fields: (members || []).map((f, n) => field(f, wasGroup.fields[n])),
          };
        }),
      };
    });
    this.problems = [];
    this.nameError = "";
    this.dirty = false;
    this.selectPlace(selected);
    this.changed({ structural: true, dirty: false, selection: true });
  }

  // After a save during which the webform changed again: the saved rows and page ids are
  // taken from the server's answer (by the places sent) and the changes kept, still unsaved.
  adoptRows(state, sent) {
    sent.forEach((page, p) => {
      const saved = state.pages[p];
      const found = saved && this.find(page.uid);
      if (!found) return;
      found.item.data.id = saved.id;
      const adopt = (uids, rows) =>
        uids.forEach((id, n) => {
          const item = this.find(id);
          if (item && rows[n]) item.item.row = rows[n].row;
        });
      adopt(page.fields, saved.fields || []);
      adopt(
        page.groups.map((g) => g.uid),
        saved.groups || [],
      );
      page.groups.forEach((g, n) => adopt(g.fields, ((saved.groups || [])[n] || {}).fields || []));
    });
    this.uses = state.uses || {};
  }

  toJSON() {
    const field = (f) => ({ ...f.data, row: f.row ?? null });
    return {
      name: this.name,
      pages: this.pages.map((page) => {
        const out = { ...page.data, fields: page.fields.map(field) };
        if (page.groups.length) {
          out.groups = page.groups.map((g) => ({
            ...g.data,
            row: g.row ?? null,
            fields: g.fields.map(field),
          }));
        }
        return out;
      }),
    };
  }

  // --- finding --------------------------------------------------------------------------
  // Where an item is: its page, and its group and field when it is one (or in one). ``list``
  // is the array it is in; ``kind`` page, group or field.
  find(id) {
    // The field ``id`` among ``list`` (a page's fields or a group's), with ``where`` it is.
    const fieldIn = (where, list) => {
      const fieldIndex = list.findIndex((f) => f.uid === id);
      if (fieldIndex < 0) return null;
      const field = list[fieldIndex];
      return { ...where, kind: "field", item: field, field, fieldIndex, list };
    };
    for (const [pageIndex, page] of this.pages.entries()) {
      const at = { page, pageIndex, group: null, groupIndex: -1, field: null, fieldIndex: -1 };
      if (page.uid === id) return { ...at, kind: "page", item: page, list: this.pages };
      const onPage = fieldIn(at, page.fields);
      if (onPage) return onPage;
      for (const [groupIndex, group] of page.groups.entries()) {
        const inGroup = { ...at, group, groupIndex };
        if (group.uid === id) return { ...inGroup, kind: "group", item: group, list: page.groups };
        const inList = fieldIn(inGroup, group.fields);
        if (inList) return inList;
      }
    }
    return null;
  }

  // The fields outside groups, in order: those a condition may name.
  allFields() {
    return this.pages.flatMap((page) => page.fields);
  }

  // Every key of the webform: fields, groups and their fields share one space.
  allKeyed() {
    return this.pages.flatMap((page) => [...page.fields, ...page.groups.flatMap((g) => [g, ...g.fields])]);
  }

  // The fields a condition of this item may name: for a field, those before it; for a page,
  // those of the pages before it.
  fieldsBefore(id) {
    const found = this.find(id);
    if (found && found.kind === "page") return this.pages.slice(0, found.pageIndex).flatMap((p) => p.fields);
    const all = this.allFields();
    const index = all.findIndex((f) => f.uid === id);
    return index < 0 ? all : all.slice(0, index);
  }

  // A field's type, with the settings it has there (in a group, no condition of its own).
  typeOf(field) {
    const type = this.types.get(field.data.type) || {
      name: field.data.type,
      label: field.data.type,
      settings: [],
    };
    const found = this.find(field.uid);
    if (!found || !found.group) return type;
    const without = new Set(this.catalogue.groupFieldWithout || []);
    return { ...type, settings: type.settings.filter((name) => !without.has(name)) };
  }

  // The types a field may take where it is.
  typesFor(field) {
    const found = this.find(field.uid);
    if (!found || !found.group) return this.catalogue.types;
    const allowed = new Set(this.catalogue.groupFieldTypes || []);
    return this.catalogue.types.filter((t) => allowed.has(t.name));
  }

  selected() {
    return this.selection ? this.find(this.selection.uid) : null;
  }

  // The selection by place (page and field index), which survives a reload of the state.
  selectedPlace() {
    const found = this.selected();
    return found
      ? { pageIndex: found.pageIndex, groupIndex: found.groupIndex, fieldIndex: found.fieldIndex }
      : null;
  }

  selectPlace(place) {
    const page = place && (this.pages[place.pageIndex] || this.pages[this.pages.length - 1]);
    const group =
      page && place.groupIndex >= 0 ? page.groups[Math.min(place.groupIndex, page.groups.length - 1)] : null;
    const list = group ? group.fields : page ? page.fields : [];
    const field = page && place.fieldIndex >= 0 ? list[Math.min(place.fieldIndex, list.length - 1)] : null;
    const target = field || group || page || this.pages[0];
    this.selection = target ? { uid: target.uid } : null;
  }

  // The page the preview shows: the selected one, or the selected field's.
  previewPage() {
    const found = this.selected();
    return found ? found.pageIndex : 0;
  }

  select(id) {
    const found = this.find(id);
    if (!found) return;
    this.selection = { uid: id };
    this.changed({ dirty: false, selection: true });
  }

  // --- changing -------------------------------------------------------------------------
  setName(name) {
    this.name = name;
    this.nameError = "";
    this.changed();
  }

  set(id, path, value) {
    const found = this.find(id);
    if (!found) return;
    const item = found.item;
    const keyed = found.kind !== "page";
    if (keyed && path === "label" && item.autoKey) {
      this.rename(item, this.uniqueKey(keyFromLabel(value) || found.kind, item));
    }
    if (keyed && path === "key") {
      item.autoKey = false;
      this.rename(item, value, { keep: true });
    } else {
      setPath(item.data, path, value);
    }
    for (const known of Object.keys(item.errors)) {
      if (known === path || known.startsWith(`${path}.`)) delete item.errors[known];
    }
    this.changed({ structural: path === "label" || path === "key" || path === "title" });
  }

  // A field's new key, and the conditions that named its old one follow it.
  rename(field, key, { keep = false } = {}) {
    const old = field.data.key;
    field.data.key = key;
    if (!old || old === key) return;
    const swap = (rule) => (rule.field === old ? { ...rule, field: key } : rule);
    for (const other of [...this.pages, ...this.allFields()]) {
      const condition = other !== field && other.data.showWhen;
      if (!condition) continue;
      if (condition.all) other.data.showWhen = { all: condition.all.map(swap) };
      else if (condition.any) other.data.showWhen = { any: condition.any.map(swap) };
      else other.data.showWhen = swap(condition);
    }
    if (keep) delete field.errors.key;
  }

  uniqueKey(stem, except = null) {
    const taken = new Set(
      this.allKeyed()
        .filter((f) => f !== except)
        .map((f) => f.data.key),
    );
    if (!taken.has(stem)) return stem;
    let n = 2;
    while (taken.has(`${stem}${n}`)) n += 1;
    return `${stem}${n}`;
  }

  // A new type keeps the settings both types have; the default goes (it was the old type's).
  setType(id, type) {
    const found = this.find(id);
    if (!found || !found.field) return;
    const field = found.field;
    const before = new Set(this.typeOf(field).settings);
    const after = new Set((this.types.get(type) || { settings: [] }).settings);
    for (const name of [...before, "default"]) {
      if (!after.has(name) || name === "default") {
        const look = this.catalogue.looks[name];
        if (look) setPath(field.data, look.path, undefined);
      }
    }
    field.data.type = type;
    field.errors = {};
    this.changed({ structural: true, retype: true });
  }

  // A new field in a page or a group: after the selected field when it is there, else last.
  addField(containerId) {
    const container = this.find(containerId);
    if (!container || container.kind === "field") return null;
    const list = container.item.fields;
    const selected = this.selected();
    const at =
      selected && selected.kind === "field" && selected.list === list ? selected.fieldIndex + 1 : list.length;
    const field = {
      uid: uid(),
      row: null,
      data: { key: this.uniqueKey("field"), type: "shortText", label: "", required: false },
      autoKey: true,
      origin: null,
      errors: {},
    };
    list.splice(at, 0, field);
    this.selection = { uid: field.uid };
    this.changed({ structural: true, selection: true });
    return field;
  }

  addGroup(pageId) {
    const found = this.find(pageId);
    if (!found || found.kind !== "page") return null;
    const group = {
      uid: uid(),
      row: null,
      data: { key: this.uniqueKey("group"), label: "" },
      autoKey: true,
      errors: {},
      fields: [],
    };
    found.page.groups.push(group);
    this.selection = { uid: group.uid };
    this.changed({ structural: true, selection: true });
    return group;
  }

  // A field or a group goes; the one after it (or before, or its container) is selected.
  remove(id) {
    const found = this.find(id);
    if (!found || found.kind === "page") return;
    const index = found.kind === "group" ? found.groupIndex : found.fieldIndex;
    found.list.splice(index, 1);
    const next = found.list[Math.min(index, found.list.length - 1)];
    this.selection = {
      uid: next ? next.uid : (found.kind === "field" && found.group ? found.group : found.page).uid,
    };
    this.changed({ structural: true, selection: true });
  }

  // Moves a field or a group to a place in a list (counted without the item itself).
  moveTo(id, list, index) {
    const found = this.find(id);
    if (!found || found.kind === "page") return;
    found.list.splice(found.list.indexOf(found.item), 1);
    list.splice(Math.max(0, Math.min(index, list.length)), 0, found.item);
    this.changed({ structural: true });
  }

  // One step up or down. A field outside groups goes past the first or last field of its
  // page onto the page before or after; a group's field and a group stay where they are.
  moveBy(id, delta) {
    const found = this.find(id);
    if (!found || found.kind === "page") return this.movePageBy(id, delta);
    const index = found.list.indexOf(found.item) + delta;
    if (index >= 0 && index < found.list.length) {
      this.moveTo(id, found.list, index);
      return true;
    }
    if (found.kind !== "field" || found.group) return false;
    const other = this.pages[found.pageIndex + delta];
    if (!other) return false;
    this.moveTo(id, other.fields, delta < 0 ? other.fields.length : 0);
    return true;
  }

  addPage() {
    const page = {
      uid: uid(),
      data: { title: `Page ${this.pages.length + 1}` },
      errors: {},
      fields: [],
      groups: [],
    };
    const selected = this.selected();
    this.pages.splice(selected ? selected.pageIndex + 1 : this.pages.length, 0, page);
    this.selection = { uid: page.uid };
    this.changed({ structural: true, selection: true });
    return page;
  }

  removePage(id) {
    const found = this.find(id);
    if (!found || found.kind !== "page" || this.pages.length < 2) return;
    this.pages.splice(found.pageIndex, 1);
    const next = this.pages[Math.min(found.pageIndex, this.pages.length - 1)];
    this.selection = { uid: next.uid };
    this.changed({ structural: true, selection: true });
  }

  movePageBy(id, delta) {
    const found = this.find(id);
    if (!found || found.kind !== "page") return false;
    const index = found.pageIndex + delta;
    if (index < 0 || index >= this.pages.length) return false;
    this.pages.splice(found.pageIndex, 1);
    this.pages.splice(index, 0, found.page);
    this.changed({ structural: true });
    return true;
  }

  movePage(id, index) {
    const found = this.find(id);
    if (!found || found.kind !== "page") return;
    this.pages.splice(found.pageIndex, 1);
    this.pages.splice(Math.max(0, Math.min(index, this.pages.length)), 0, found.page);
    this.changed({ structural: true });
  }

  sentShape() {
    const uids = (items) => items.map((item) => item.uid);
    return this.pages.map((page) => ({
      uid: page.uid,
      fields: uids(page.fields),
      groups: page.groups.map((g) => ({ uid: g.uid, fields: uids(g.fields) })),
    }));
  }
}
