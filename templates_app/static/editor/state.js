// What can be done to the editor's document (document-state.js): adding, deleting, copying
// and pasting fields, changing their type, place and size, their boxes, options and parts,
// arrays, lining fields up, and the document's title and style. Each change is one edit(): one
// undo step, then a "change" event.

import { boxToRectWithin, rectToBox, round2, screenDeltaToPdf } from "#common/page-box.js";
import { DocumentState } from "./document-state.js";
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
import { mapRect, translateRect, unionBox } from "./geometry.js";

const MIN_SIZE = 2; // points: the smallest side a field keeps when resized

export class EditorState extends DocumentState {
  constructor() {
    super();
    this.clipboard = [];
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
    this.clipboard = structuredClone(this.selectedFields());
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
      const field = structuredClone(original);
      field.id = newId("f");
      const stem = (field.alias || aliasStem(field.type)).replace(/\d+$/, "");
      field.alias = uniqueName(stem, taken);
      taken.add(field.alias);
      field.page = page;
      moveField(field, shift.dx, shift.dy);
      this.clampField(field);
      return field;
    });
    this.clipboard = created.map((field) => structuredClone(field));
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
    this.editSelected("nudge", (field) => {
      const delta = screenDeltaToPdf(this.viewport(field.page || 0), screenDx, screenDy);
      moveFieldOrSub(field, this.sub, delta.dx, delta.dy);
      this.clampField(field);
    });
  }

  // Grow or shrink the selection's right/bottom edge as seen on screen: Alt+arrow keys.
  stretch(screenDw, screenDh) {
    this.editSelected("stretch", (field) => {
      const viewport = this.viewport(field.page || 0);
      const target = this.sub ? getSubRect(field, this.sub.kind, this.sub.key) : field.rect;
      const box = rectToBox(viewport, target);
      box.width = Math.max(MIN_SIZE, box.width + screenDw);
      box.height = Math.max(MIN_SIZE, box.height + screenDh);
      const rect = boxToRectWithin(viewport, box, this.bounds(field.page || 0));
      resizeFieldOrSub(field, this.sub, rect);
    });
  }

  // One edit of every selected field (none: nothing), merged with the edits just before it of
  // the same ``coalesce`` kind, as a key held down makes them.
  editSelected(coalesce, change) {
    const fields = this.selectedFields();
    if (!fields.length) return;
    this.edit(
      () => {
        for (const field of fields) change(field);
      },
      { coalesce },
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

// Move the field, or only its sub-rectangle ``sub`` ({kind, key}) when one is selected: the
// field's own rect then follows its sub-rectangles.
export function moveFieldOrSub(field, sub, dx, dy) {
  if (!sub) {
    moveField(field, dx, dy);
    return;
  }
  setSubRect(field, sub.kind, sub.key, translateRect(getSubRect(field, sub.kind, sub.key), dx, dy));
  fitToSubRects(field);
}

// Give the field, or only its sub-rectangle ``sub`` ({kind, key}) when one is selected, a new
// rect.
export function resizeFieldOrSub(field, sub, rect) {
  if (!sub) {
    resizeField(field, rect);
    return;
  }
  setSubRect(field, sub.kind, sub.key, rect);
  fitToSubRects(field);
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
