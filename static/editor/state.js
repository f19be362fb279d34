// The editor's document: the working version's fields, arrays and style, the selection, undo
// history, and what the last save said. Views listen for "change" events and redraw; they change
// the document only through the methods here, so undo and "unsaved changes" always hold.

import {
  aliasStem,
  applyType,
  fitToSubRects,
  getSubRect,
  newId,
  setSubRect,
  splitRect,
  subRects,
  uniqueName,
} from "./fields.js";
import { boxToRectWithin, rectToBox, round2, screenDeltaToPdf } from "../common/page-box.js";
import { mapRect, translateRect, unionBox } from "./geometry.js";

const UNDO_LIMIT = 200;
const COALESCE_MS = 1200;
const MIN_SIZE = 2; // points: the smallest side a field keeps when resized

function clone(value) {
  return structuredClone(value);
}

export class EditorState extends EventTarget {
  constructor() {
    super();
    this.title = "";
    this.pages = [];
    this.fields = [];
    this.arrays = [];
    this.style = {};
    this.summary = null;
    this.exampleData = {};
    // One scale-1 pdf.js viewport per page (1 CSS px = 1 pt), set once the PDF is open.
    this.viewports = [];
    this.selection = new Set();
    // A selected sub-rectangle of the single selected field: {kind, key}.
    this.sub = null;
    // Problems of the last refused save or publish: {property, message, fieldId, arrayId}.
    this.problems = [];
    this.savedJson = "";
    this.revision = 0;
    this.clipboard = [];
    this.undoStack = [];
    this.redoStack = [];
    this.lastEdit = null;
  }

  // --- loading and saving -------------------------------------------------------------------
  load(server) {
    this.title = server.title;
    this.pages = server.spec.pages || [];
    this.fields = clone(server.spec.fields || []);
    this.arrays = clone(server.spec.arrays || []);
    this.style = clone(server.spec.style || {});
    this.summary = server.summary;
    this.exampleData = server.exampleData || {};
    this.savedJson = this.json();
    const known = new Set(this.fields.map((f) => f.id));
    this.selection = new Set([...this.selection].filter((id) => known.has(id)));
    if (this.sub && this.selection.size !== 1) this.sub = null;
    this.emit({ data: true, selection: true, structure: true });
  }

  json() {
    return JSON.stringify({
      title: this.title,
      fields: this.fields,
      arrays: this.arrays,
      style: this.style,
    });
  }

  get dirty() {
    return this.json() !== this.savedJson;
  }

  specForSave() {
    return {
      pages: this.pages,
      fields: clone(this.fields),
      arrays: clone(this.arrays),
      style: clone(this.style),
    };
  }

  // The server accepted what was sent at ``sentRevision``. Take its normalised copy unless the
  // user changed something meanwhile (then that newer state stays, and stays unsaved).
  markSaved(sentRevision, sentJson, server) {
    this.summary = server.summary;
    this.exampleData = server.exampleData || {};
    this.problems = [];
    if (this.revision === sentRevision) {
      this.load(server);
    } else {
      this.savedJson = sentJson;
      this.emit({ data: false, selection: false });
    }
  }

  // A refused save: map each problem's path (``fields.3.rect``) to the field that was sent at
  // that index, so the page can mark it even if fields were reordered since.
  setProblems(wireFields, sentSpec) {
    this.problems = wireFields.map((problem) => {
      const out = { property: problem.property, message: problem.message };
      const field = /^fields\.(\d+)(?:\.|$)/.exec(problem.property);
      if (field) out.fieldId = sentSpec.fields[Number(field[1])]?.id;
      const array = /^arrays\.(\d+)(?:\.|$)/.exec(problem.property);
      if (array) out.arrayId = sentSpec.arrays[Number(array[1])]?.id;
      return out;
    });
    this.emit({ data: false, selection: false, problems: true });
  }

  problemsOf(fieldId) {
    return this.problems.filter((p) => p.fieldId === fieldId);
  }

  emit(detail) {
    this.dispatchEvent(new CustomEvent("change", { detail }));
  }

  // --- undo ---------------------------------------------------------------------------------
  snapshot() {
    return this.json();
  }

  restore(json) {
    const data = JSON.parse(json);
    this.title = data.title;
    this.fields = data.fields;
    this.arrays = data.arrays;
    this.style = data.style;
    const known = new Set(this.fields.map((f) => f.id));
    this.selection = new Set([...this.selection].filter((id) => known.has(id)));
    this.sub = null;
  }

  pushUndo() {
    this.undoStack.push(this.snapshot());
    if (this.undoStack.length > UNDO_LIMIT) this.undoStack.shift();
    this.redoStack = [];
  }

  undo() {
    if (!this.undoStack.length) return false;
    this.redoStack.push(this.snapshot());
    this.restore(this.undoStack.pop());
    this.lastEdit = null;
    this.revision += 1;
    this.emit({ data: true, selection: true, structure: true });
    return true;
  }

  redo() {
    if (!this.redoStack.length) return false;
    this.undoStack.push(this.snapshot());
    this.restore(this.redoStack.pop());
    this.lastEdit = null;
    this.revision += 1;
    this.emit({ data: true, selection: true, structure: true });
    return true;
  }

  // Every change goes through here: one undo step (consecutive edits with the same
  // ``coalesce`` key, like typing an alias, share one), then redraw.
  edit(fn, { coalesce = null, structure = false, record = true } = {}) {
    const now = Date.now();
    const joins =
      coalesce &&
      this.lastEdit &&
      this.lastEdit.key === coalesce &&
      now - this.lastEdit.at < COALESCE_MS;
    if (record && !joins) this.pushUndo();
    this.lastEdit = coalesce ? { key: coalesce, at: now } : null;
    const result = fn();
    this.revision += 1;
    // What the user touched is no longer what the server refused.
    const touched = new Set(this.selection);
    this.problems = this.problems.filter((p) => !p.fieldId || !touched.has(p.fieldId));
    this.emit({ data: true, selection: false, structure });
    return result;
  }

  // A mouse gesture records one undo step when it starts, then changes the fields in place and
  // calls touch() to redraw.
  beginGesture() {
    this.pushUndo();
    this.lastEdit = null;
    this.problems = this.problems.filter((p) => !p.fieldId || !this.selection.has(p.fieldId));
  }

  touch() {
    this.revision += 1;
    this.emit({ data: true, selection: false });
  }

  // --- reading ------------------------------------------------------------------------------
  field(id) {
    return this.fields.find((f) => f.id === id);
  }

  selectedFields() {
    return this.fields.filter((f) => this.selection.has(f.id));
  }

  fieldsOnPage(page) {
    return this.fields.filter((f) => (f.page || 0) === page);
  }

  arrayOf(fieldId) {
    for (const array of this.arrays) {
      const row = array.fieldIds.indexOf(fieldId);
      if (row >= 0) return { array, row };
    }
    return null;
  }

  takenAliases() {
    return new Set([
      ...this.fields.map((f) => f.alias || f.id),
      ...this.arrays.map((a) => a.alias || a.id),
    ]);
  }

  viewport(page) {
    return this.viewports[page];
  }

  // What a field may occupy on its page, in points: the visible page (CropBox) inside the
  // MediaBox the server checks against.
  bounds(page) {
    const [vx0, vy0, vx1, vy1] = this.viewports[page].viewBox;
    const media = this.pages[page]?.mediaBox || [vx0, vy0, vx1, vy1];
    return {
      x0: Math.max(vx0, media[0]),
      y0: Math.max(vy0, media[1]),
      x1: Math.min(vx1, media[2]),
      y1: Math.min(vy1, media[3]),
    };
  }

  // --- selection ----------------------------------------------------------------------------
  select(ids, { add = false } = {}) {
    if (!add) this.selection = new Set();
    for (const id of ids) this.selection.add(id);
    this.sub = null;
    this.emit({ data: false, selection: true });
  }

  toggle(id) {
    if (this.selection.has(id)) this.selection.delete(id);
    else this.selection.add(id);
    this.sub = null;
    this.emit({ data: false, selection: true });
  }

  clearSelection() {
    if (!this.selection.size && !this.sub) return;
    this.selection = new Set();
    this.sub = null;
    this.emit({ data: false, selection: true });
  }

  selectSub(fieldId, kind, key) {
    this.selection = new Set([fieldId]);
    this.sub = kind ? { kind, key } : null;
    this.emit({ data: false, selection: true });
  }

  // --- creating and deleting ----------------------------------------------------------------
  addField(type, page, rect) {
    const field = {
      id: newId("f"),
      alias: uniqueName(aliasStem(type), this.takenAliases()),
      type: "shortText",
      page,
      rect,
    };
    this.edit(
      () => {
        applyType(field, type, this.viewport(page));
        this.fields.push(field);
        this.selection = new Set([field.id]);
        this.sub = null;
      },
      { structure: true },
    );
    this.emit({ data: false, selection: true });
    return field;
  }

  deleteSelection() {
    if (this.sub) return this.deleteSub();
    const ids = this.selection;
    if (!ids.size) return 0;
    const count = ids.size;
    this.edit(
      () => {
        this.fields = this.fields.filter((f) => !ids.has(f.id));
        this.arrays = this.arrays
          .map((a) => ({ ...a, fieldIds: a.fieldIds.filter((id) => !ids.has(id)) }))
          .filter((a) => a.fieldIds.length);
        this.selection = new Set();
      },
      { structure: true },
    );
    this.emit({ data: false, selection: true });
    return count;
  }

  // Delete the selected box, radio option or part (not the last box or option).
  deleteSub() {
    const field = this.selectedFields()[0];
    const { kind, key } = this.sub;
    if (kind !== "parts" && field[kind].length <= 1) return 0;
    this.edit(
      () => {
        if (kind === "parts") {
          delete field.parts[key];
          if (!Object.keys(field.parts).length) delete field.parts;
        } else {
          field[kind].splice(key, 1);
          if (field.type === "charList") field.maxLength = field.boxes.length;
        }
        fitToSubRects(field);
        this.sub = null;
      },
      { structure: true },
    );
    this.emit({ data: false, selection: true });
    return 1;
  }

  copy() {
    this.clipboard = clone(this.selectedFields());
    return this.clipboard.length;
  }

  // Paste the copied fields onto ``page``: nudged down-right when they come back onto the page
  // they were copied from, so the copy is visible; new ids and aliases.
  paste(page) {
    if (!this.clipboard.length) return 0;
    const viewport = this.viewport(page);
    const samePage = this.clipboard.every((f) => f.page === page);
    const shift = samePage ? screenDeltaToPdf(viewport, 10, 10) : { dx: 0, dy: 0 };
    const taken = this.takenAliases();
    const created = this.clipboard.map((original) => {
      const field = clone(original);
      field.id = newId("f");
      const stem = (field.alias || aliasStem(field.type)).replace(/\d+$/, "");
      field.alias = uniqueName(stem, taken);
      taken.add(field.alias);
      field.page = page;
      moveField(field, shift.dx, shift.dy);
      this.clampField(field);
      return field;
    });
    this.clipboard = created.map(clone);
    this.edit(
      () => {
        this.fields.push(...created);
        this.selection = new Set(created.map((f) => f.id));
        this.sub = null;
      },
      { structure: true },
    );
    this.emit({ data: false, selection: true });
    return created.length;
  }

  // --- changing fields ----------------------------------------------------------------------
  updateField(id, change, options = {}) {
    const field = this.field(id);
    if (!field) return;
    this.edit(() => change(field), options);
  }

  // Change the type of one field or several (a list of ids). Every field of an array has one
  // type, so retyping a member retypes its whole column.
  setType(ids, type) {
    const wanted = new Set(Array.isArray(ids) ? ids : [ids]);
    for (const id of [...wanted]) {
      const member = this.arrayOf(id);
      if (member) member.array.fieldIds.forEach((each) => wanted.add(each));
    }
    this.edit(
      () => {
        for (const id of wanted) {
          const field = this.field(id);
          const oldStem = aliasStem(field.type);
          applyType(field, type, this.viewport(field.page || 0));
          // An alias the editor made up follows the type ("text3" becomes "date1").
          if (new RegExp(`^${oldStem}\\d+$`).test(field.alias || "")) {
            const taken = this.takenAliases();
            taken.delete(field.alias);
            field.alias = uniqueName(aliasStem(type), taken);
          }
        }
      },
      { structure: true },
    );
  }

  setRect(id, rect) {
    this.updateField(id, (field) => resizeField(field, rect), { coalesce: `rect:${id}` });
  }

  // Move the selection (or the selected sub-rectangle) by a distance on screen, in points:
  // the arrow keys. On a rotated page "right" is still right as the user sees it.
  nudge(screenDx, screenDy) {
    const fields = this.selectedFields();
    if (!fields.length) return;
    this.edit(
      () => {
        for (const field of fields) {
          const delta = screenDeltaToPdf(this.viewport(field.page || 0), screenDx, screenDy);
          if (this.sub) {
            const { kind, key } = this.sub;
            setSubRect(
              field,
              kind,
              key,
              translateRect(getSubRect(field, kind, key), delta.dx, delta.dy),
            );
            fitToSubRects(field);
          } else {
            moveField(field, delta.dx, delta.dy);
          }
          this.clampField(field);
        }
      },
      { coalesce: "nudge" },
    );
  }

  // Grow or shrink the selection's right/bottom edge as seen on screen: Alt+arrow keys.
  stretch(screenDw, screenDh) {
    const fields = this.selectedFields();
    if (!fields.length) return;
    this.edit(
      () => {
        for (const field of fields) {
          const viewport = this.viewport(field.page || 0);
          const target = this.sub ? getSubRect(field, this.sub.kind, this.sub.key) : field.rect;
          const box = rectToBox(viewport, target);
          box.width = Math.max(MIN_SIZE, box.width + screenDw);
          box.height = Math.max(MIN_SIZE, box.height + screenDh);
          const rect = boxToRectWithin(viewport, box, this.bounds(field.page || 0));
          if (this.sub) {
            setSubRect(field, this.sub.kind, this.sub.key, rect);
            fitToSubRects(field);
          } else {
            resizeField(field, rect);
          }
        }
      },
      { coalesce: "stretch" },
    );
  }

  // Keep a field inside its page (a field already hanging over the edge may stay as it is).
  clampField(field) {
    const b = this.bounds(field.page || 0);
    const r = field.rect;
    let dx = 0;
    let dy = 0;
    if (r.x + r.width > b.x1) dx = b.x1 - (r.x + r.width);
    if (r.x + dx < b.x0) dx = b.x0 - r.x;
    if (r.y + r.height > b.y1) dy = b.y1 - (r.y + r.height);
    if (r.y + dy < b.y0) dy = b.y0 - r.y;
    if (dx || dy) moveField(field, dx, dy);
  }

  // --- sub-rectangles -----------------------------------------------------------------------
  setBoxCount(id, count) {
    const field = this.field(id);
    const viewport = this.viewport(field.page || 0);
    const direction = field.type === "charList" ? "columns" : "rows";
    this.edit(
      () => {
        field.boxes = splitRect(viewport, field.rect, count, direction);
        if (field.type === "charList") field.maxLength = count;
        this.sub = null;
      },
      { structure: true },
    );
  }

  splitOptions(id, count, direction) {
    const field = this.field(id);
    const viewport = this.viewport(field.page || 0);
    const old = field.options || [];
    this.edit(
      () => {
        field.options = splitRect(viewport, field.rect, count, direction).map((rect, index) => ({
          id: old[index]?.id || uniqueOptionId(field.options || [], index),
          rect,
        }));
        this.sub = null;
      },
      { structure: true },
    );
  }

  addOption(id, rect) {
    const field = this.field(id);
    this.edit(
      () => {
        const ids = new Set(field.options.map((o) => o.id));
        field.options.push({ id: uniqueName("option", ids), rect });
        fitToSubRects(field);
        this.sub = { kind: "options", key: field.options.length - 1 };
      },
      { structure: true },
    );
    this.emit({ data: false, selection: true });
  }

  setParts(id, on, partRectsOf) {
    const field = this.field(id);
    this.edit(
      () => {
        if (on) field.parts = partRectsOf(field);
        else delete field.parts;
        this.sub = null;
      },
      { structure: true },
    );
  }

  setSubRectOf(id, kind, key, rect) {
    this.updateField(
      id,
      (field) => {
        setSubRect(field, kind, key, rect);
        fitToSubRects(field);
      },
      { coalesce: `sub:${id}:${kind}:${key}` },
    );
  }

  // --- arrays -------------------------------------------------------------------------------
  // Wrap the selected fields into one array, rows ordered top to bottom as seen on the page.
  wrapSelectionInArray() {
    const fields = this.selectedFields();
    if (fields.length < 2) return { error: "Select at least two fields of one column." };
    const types = new Set(fields.map((f) => f.type));
    if (types.size > 1) {
      return {
        error: `An array holds fields of one type; the selection mixes ${[...types].join(", ")}.`,
      };
    }
    const pages = new Set(fields.map((f) => f.page || 0));
    if (pages.size > 1) return { error: "All fields of an array must be on one page." };
    const taken = fields.filter((f) => this.arrayOf(f.id));
    if (taken.length) return { error: `${taken[0].alias} is already in an array.` };
    const viewport = this.viewport(fields[0].page || 0);
    const ordered = fields
      .map((f) => ({ f, box: rectToBox(viewport, f.rect) }))
      .sort((a, b) => a.box.top - b.box.top || a.box.left - b.box.left)
      .map(({ f }) => f.id);
    const array = {
      id: newId("a"),
      alias: uniqueName("items", this.takenAliases()),
      fieldIds: ordered,
    };
    this.edit(() => this.arrays.push(array), { structure: true });
    return { array };
  }

  unwrapArray(arrayId) {
    this.edit(
      () => {
        this.arrays = this.arrays.filter((a) => a.id !== arrayId);
      },
      { structure: true },
    );
  }

  updateArray(arrayId, change) {
    const array = this.arrays.find((a) => a.id === arrayId);
    this.edit(
      () => {
        change(array);
        this.problems = this.problems.filter((p) => p.arrayId !== arrayId);
      },
      { coalesce: `array:${arrayId}` },
    );
  }

  // --- arranging several fields -------------------------------------------------------------
  // Line up the selected fields on one page by their screen edges ("left", "top", "right",
  // "bottom"), make them one size ("width", "height"), or space them evenly ("distribute").
  arrange(how) {
    const fields = this.selectedFields();
    if (fields.length < 2) return;
    const page = fields[0].page || 0;
    if (fields.some((f) => (f.page || 0) !== page)) return;
    const viewport = this.viewport(page);
    const bounds = this.bounds(page);
    const items = fields.map((f) => ({ f, box: rectToBox(viewport, f.rect) }));
    const all = unionBox(items.map((i) => i.box));
    const first = items[0].box;
    if (how === "distribute") {
      items.sort((a, b) => a.box.top - b.box.top);
      const used = items.reduce((sum, i) => sum + i.box.height, 0);
      const gap = (all.height - used) / (items.length - 1);
      let top = all.top;
      for (const item of items) {
        item.box.top = top;
        top += item.box.height + gap;
      }
    } else {
      for (const { box } of items) {
        if (how === "left") box.left = all.left;
        if (how === "right") box.left = all.left + all.width - box.width;
        if (how === "top") box.top = all.top;
        if (how === "bottom") box.top = all.top + all.height - box.height;
        if (how === "width") box.width = first.width;
        if (how === "height") box.height = first.height;
      }
    }
    this.edit(() => {
      for (const { f, box } of items) resizeField(f, boxToRectWithin(viewport, box, bounds));
    });
  }

  // --- document -----------------------------------------------------------------------------
  setTitle(title) {
    this.edit(
      () => {
        this.title = title;
      },
      { coalesce: "title", record: true },
    );
  }

  setDocumentStyle(key, value) {
    this.edit(
      () => {
        if (value === null || value === "" || value === undefined) delete this.style[key];
        else this.style[key] = value;
        this.problems = this.problems.filter((p) => !p.property.startsWith(`style.${key}`));
      },
      { coalesce: `docstyle:${key}` },
    );
  }
}

// --- helpers that change one field in place ---------------------------------------------------
export function moveField(field, dx, dy) {
  field.rect = translateRect(field.rect, dx, dy);
  for (const [kind, key, rect] of subRects(field)) {
    setSubRect(field, kind, key, translateRect(rect, dx, dy));
  }
}

// Give a field a new rect; its boxes, options and parts scale with it.
export function resizeField(field, rect) {
  const from = field.rect;
  const to = {
    x: round2(rect.x),
    y: round2(rect.y),
    width: round2(Math.max(MIN_SIZE, rect.width)),
    height: round2(Math.max(MIN_SIZE, rect.height)),
  };
  for (const [kind, key, sub] of subRects(field))
    setSubRect(field, kind, key, mapRect(sub, from, to));
  field.rect = to;
}

function uniqueOptionId(options, index) {
  const ids = new Set(options.map((o) => o.id));
  const wanted = `option${index + 1}`;
  return ids.has(wanted) ? uniqueName("option", ids) : wanted;
}
