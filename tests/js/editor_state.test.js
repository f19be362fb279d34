// The template editor's document and its changes (templates_app/static/editor/state.js), without
// a page: adding, copying, deleting and retyping fields, and undo. The field types are the
// server's own (core/engine/field_types.py), written to FIELD_TYPES_JSON by
// tests/js/test_node_units.py, which runs these tests.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { beforeEach, test } from "node:test";

import { defineFieldTypes } from "../../templates_app/static/editor/fields.js";
import { EditorState } from "../../templates_app/static/editor/state.js";

const HEIGHT = 792;

// pdf.js' PageViewport at scale 1 for an unrotated US Letter page: y turns down.
const letter = {
  viewBox: [0, 0, 612, HEIGHT],
  convertToViewportRectangle: ([x0, y0, x1, y1]) => [x0, HEIGHT - y0, x1, HEIGHT - y1],
  convertToPdfPoint: (x, y) => [x, HEIGHT - y],
};

let state;

beforeEach(() => {
  defineFieldTypes(JSON.parse(readFileSync(process.env.FIELD_TYPES_JSON, "utf8")));
  state = new EditorState();
  state.viewports = [letter, letter];
  state.load({
    title: "Lease",
    spec: { pages: [{ mediaBox: [0, 0, 612, HEIGHT] }, { mediaBox: [0, 0, 612, HEIGHT] }] },
    summary: null,
  });
});

test("an added field is selected, named after its type and unsaved", () => {
  const first = state.addField("email", 0, { x: 72, y: 600, width: 200, height: 20 });
  const second = state.addField("email", 0, { x: 72, y: 560, width: 200, height: 20 });

  assert.equal(first.type, "email");
  assert.notEqual(first.alias, second.alias);
  assert.deepEqual([...state.selection], [second.id]);
  assert.equal(state.dirty, true);
});

test("undo takes back one change and redo makes it again", () => {
  const field = state.addField("shortText", 0, { x: 72, y: 600, width: 200, height: 20 });
  state.setTitle("Lease, signed");

  assert.equal(state.undo(), true);
  assert.equal(state.title, "Lease");
  assert.equal(state.undo(), true);
  assert.equal(state.field(field.id), undefined);
  assert.equal(state.dirty, false);
  assert.equal(state.undo(), false);

  assert.equal(state.redo(), true);
  assert.deepEqual(state.field(field.id).rect, field.rect);
});

test("a pasted copy gets a new id and alias and, on the same page, moves down-right", () => {
  const original = state.addField("shortText", 0, { x: 72, y: 600, width: 200, height: 20 });
  assert.equal(state.copy(), 1);

  assert.equal(state.paste(0), 1);
  const [copy] = state.selectedFields();
  assert.notEqual(copy.id, original.id);
  assert.notEqual(copy.alias, original.alias);
  assert.ok(copy.rect.x > original.rect.x && copy.rect.y < original.rect.y);

  assert.equal(state.paste(1), 1);
  assert.equal(state.selectedFields()[0].page, 1);
  assert.equal(state.fields.length, 3);
});

test("deleting the selection removes the fields and empties arrays of them", () => {
  const a = state.addField("shortText", 0, { x: 72, y: 600, width: 200, height: 20 });
  const b = state.addField("shortText", 0, { x: 72, y: 560, width: 200, height: 20 });
  state.select([a.id, b.id]);
  state.wrapSelectionInArray();
  assert.equal(state.arrays.length, 1);

  state.select([a.id, b.id]);
  assert.equal(state.deleteSelection(), 2);

  assert.deepEqual(state.fields, []);
  assert.deepEqual(state.arrays, []);
});

test("a field moved by the keyboard stays on its page", () => {
  const field = state.addField("shortText", 0, { x: 5, y: 600, width: 200, height: 20 });

  state.nudge(-50, 0);

  assert.ok(state.field(field.id).rect.x >= 0);
});

test("every server type can be chosen for a field and saved", () => {
  const types = JSON.parse(readFileSync(process.env.FIELD_TYPES_JSON, "utf8"));
  const field = state.addField("shortText", 0, { x: 72, y: 400, width: 240, height: 40 });
  for (const { name } of types) {
    state.setType([field.id], name);
    assert.equal(state.field(field.id).type, name);
    assert.doesNotThrow(() => JSON.parse(JSON.stringify(state.specForSave())));
  }
});
