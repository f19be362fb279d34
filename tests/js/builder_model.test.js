// The webform builder's model (workflows/static/workflows/builder/model.js), without a page:
// keys made from labels, conditions that follow a renamed key, moving fields across pages, and
// the JSON the builder saves. The catalogue is the server's own (workflows/builder/catalogue.py),
// written to BUILDER_CATALOGUE_JSON by tests/js/test_node_units.py, which runs these tests.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { beforeEach, test } from "node:test";

import { Model, keyFromLabel } from "../../workflows/static/workflows/builder/model.js";

let model;
let changes;

beforeEach(() => {
  model = new Model(JSON.parse(readFileSync(process.env.BUILDER_CATALOGUE_JSON, "utf8")));
  changes = [];
  model.onChange((change) => changes.push(change));
  model.load({
    name: "Intake",
    pages: [
      {
        id: "p1",
        title: "About you",
        fields: [{ row: "r1", key: "email", type: "email", label: "Email", required: true }],
      },
      {
        id: "p2",
        title: "Order",
        fields: [
          {
            row: "r2",
            key: "notes",
            type: "longText",
            label: "Notes",
            showWhen: { field: "email", operator: "isFilled" },
          },
        ],
      },
    ],
  });
});

test("a key is made from a label as people write it", () => {
  assert.equal(keyFromLabel("Email address"), "emailAddress");
  assert.equal(keyFromLabel("Pet's name"), "petsName");
  assert.equal(keyFromLabel("Teléfono"), "telefono");
});

test("a new field is keyed from its label, uniquely, and marks the webform unsaved", () => {
  assert.equal(model.dirty, false);
  const field = model.addField(model.pages[0].uid);
  model.set(field.uid, "label", "Email");

  assert.equal(field.data.key, "email2");
  assert.equal(model.dirty, true);
  assert.ok(changes.some((c) => c.structural));
});

test("renaming a key carries the conditions that name it", () => {
  const email = model.pages[0].fields[0];
  model.set(email.uid, "key", "contactEmail");

  assert.equal(model.pages[1].fields[0].data.showWhen.field, "contactEmail");
});

test("a field moved past the last of its page goes to the next page, keeping its row", () => {
  const email = model.pages[0].fields[0];

  assert.equal(model.moveBy(email.uid, 1), true);

  assert.deepEqual(
    model.toJSON().pages.map((p) => p.fields.map((f) => [f.key, f.row])),
    [[], [["email", "r1"], ["notes", "r2"]]],
  );
});

test("a new type keeps only the settings both types have", () => {
  const notes = model.pages[1].fields[0];
  model.set(notes.uid, "default", "none");

  model.setType(notes.uid, "shortText");

  assert.equal(notes.data.type, "shortText");
  assert.equal(notes.data.default, undefined);
  assert.deepEqual(notes.data.showWhen, { field: "email", operator: "isFilled" });
});

test("the last page cannot be removed; another can, and the next one is selected", () => {
  const [first, second] = model.pages;
  model.removePage(first.uid);
  assert.deepEqual(model.pages, [second]);
  assert.deepEqual(model.selection, { uid: second.uid });

  model.removePage(second.uid);
  assert.equal(model.pages.length, 1);
});
