// The editor's document: the working version's fields, arrays and style, the selection, undo
// history, and what the last save said. Views listen for "change" events and redraw. Every
// change goes through edit() (or a gesture's beginGesture() and touch()), so undo and "unsaved
// changes" always hold; the changes themselves are EditorState's (state.js).

const UNDO_LIMIT = 200;
const COALESCE_MS = 1200;

function clone(value) {
  return structuredClone(value);
}

export class DocumentState extends EventTarget {
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
    return this.travel(this.undoStack, this.redoStack);
  }

  redo() {
    return this.travel(this.redoStack, this.undoStack);
  }

  // Undo and redo: restore the last snapshot of ``from``, keeping the present on ``to``
  // (false when ``from`` is empty).
  travel(from, to) {
    if (!from.length) return false;
    to.push(this.snapshot());
    this.restore(from.pop());
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
}
