// The signer's fields as the signing page names, orders and checks them: what does not depend
// on the page's state. The words are the server's, in the signer's language (strings.js).

import { t } from "./strings.js";

const TYPE_LABELS = {
  signature: t("type.signature"),
  initial: t("type.initial"),
  signatureDate: t("type.signatureDate"),
  shortText: t("type.text"),
  longText: t("type.text"),
  text: t("type.text"),
  fullName: t("type.fullName"),
  email: t("type.email"),
  date: t("type.date"),
  checkbox: t("type.checkbox"),
};
export const PLACEHOLDERS = {
  signature: t("placeholder.signature"),
  initial: t("placeholder.initial"),
  checkbox: "",
};
export const STAMPED = new Set(["signature", "initial"]);

// Whether the signer must fill the field before finishing (as the service checks it): every
// field but a checkbox, which is true or false. The guide visits every field all the same; a
// field that may stay empty counts as done once the guide has shown it.
export const isRequired = (field) => field.type !== "checkbox";

export const keyOf = (field) => `${field.fileId}/${field.fieldId}`;
export const labelOf = (field) => TYPE_LABELS[field.type] || TYPE_LABELS.text;
export const today = () => new Date().toISOString().slice(0, 10); // the server stamps the UTC date

// Reading order: document, page, then top to bottom and left to right as the page shows.
export function sortFields(fields, documents) {
  const order = new Map(documents.map((doc, index) => [doc.id, index]));
  return [...fields].sort(
    (a, b) =>
      (order.get(a.fileId) ?? 0) - (order.get(b.fileId) ?? 0) ||
      a.page - b.page ||
      Math.round(b.rect.y + b.rect.height) - Math.round(a.rect.y + a.rect.height) ||
      a.rect.x - b.rect.x,
  );
}

// The signing date is filled in by the service: its box shows the date, but it is no step of
// the guide and no "completed" field the signer did not complete.
export const AUTOMATIC = new Set(["signatureDate"]);

// What is wrong with a typed value for its field's type (as the server checks it), or null.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
export function valueProblem(field, raw) {
  const value = String(raw ?? "").trim();
  if (!value) return null;
  if (field.type === "email" && !EMAIL.test(value)) {
    return t("problem.email");
  }
  if (field.type === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    return t("problem.date");
  }
  return null;
}

// The body of finishing: the signer's typed values (a checkbox true or false) and the adopted
// signature and initials.
export function signatureBody(fields, values, adoption) {
  const typed = {};
  for (const field of fields) {
    if (STAMPED.has(field.type) || field.type === "signatureDate") continue;
    const value = values[keyOf(field)];
    typed[keyOf(field)] = field.type === "checkbox" ? Boolean(value) : String(value ?? "").trim();
  }
  const body = { values: typed };
  if (adoption) {
    if (adoption.drawn || adoption.typed) {
      body.signature =
        adoption.mode === "draw" ? { drawn: adoption.drawn } : { typed: adoption.typed };
    }
    body.initials = adoption.initials || "";
  }
  return body;
}
