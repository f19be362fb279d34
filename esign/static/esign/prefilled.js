// Values the sender filled in (allowUpdates, an extension; esign/signing/updates.py). The signer's
// own prefilled fields start with the sender's value: in the guide, to change, when the signer may
// (config.allowUpdates), else shown over the page as they are, no step of the guide. The other
// signers' values not stamped yet are shown over the page too, as they stand.

import { h } from "#common/dom.js";
import { keyOf } from "./fields.js";

export const isPrefilled = (field) => field.value !== undefined && field.value !== null;

// A prefilled field of the signer's that they may not change: no step of the guide.
export const isLocked = (field, config) => isPrefilled(field) && !config.allowUpdates;

function valueText(field) {
  if (field.type === "checkbox") return field.value ? "\u2713" : "";
  return String(field.value);
}

// The read-only boxes: the signer's locked fields and the other signers' values.
export function placePrefilled(view, fields) {
  for (const field of fields) {
    const box = h(
      "span",
      {
        class: `sg-field sg-type-${field.type} is-done is-automatic is-prefilled`,
        dataset: { key: keyOf(field) },
      },
      h("span", { class: "sg-value" }, valueText(field)),
    );
    view.place(field, box);
  }
}
