// The guide's control for the current field: adopting a signature or initials, the date the
// service fills in, a checkbox, or a value to type. ``page`` holds the signing page's state
// and what the control does to it (sign.js's controlActions).

import { h } from "#common/dom.js";
import { STAMPED, keyOf, labelOf, today } from "./fields.js";
import { pageLanguage, t, tNodes } from "./strings.js";

export function controlFor(field, page) {
  const { state } = page;
  const key = keyOf(field);
  const head = h(
    "p",
    { class: "sg-control-label" },
    h("strong", {}, labelOf(field)),
    h("span", { class: "sg-where" }, tNodes("on", { where: page.whereNodes(field) })),
  );
  if (STAMPED.has(field.type)) {
    const isSignature = field.type === "signature";
    if (!page.isFilled(field)) {
      return [
        head,
        h(
          "p",
          { class: "sg-control-help" },
          t(isSignature ? "adopt.signatureHelp" : "adopt.initialsHelp"),
        ),
        h(
          "button",
          { type: "button", class: "sg-btn sg-btn-primary", id: "sg-adopt-open", onclick: page.adopt },
          t(isSignature ? "adopt.signature" : "adopt.initials"),
        ),
      ];
    }
    const adoption = state.adoption;
    const preview =
      field.type === "signature" && adoption.drawn
        ? h("img", { class: "sg-preview-ink", src: adoption.drawn, alt: t("adopt.drawnAlt") })
        : h(
            "span",
            { class: "sg-preview-hand" },
            field.type === "signature" ? adoption.typed : adoption.initials,
          );
    return [
      head,
      h(
        "div",
        { class: "sg-adopted" },
        preview,
        h(
          "button",
          { type: "button", class: "sg-btn sg-btn-small", id: "sg-adopt-open", onclick: page.adopt },
          t("adopt.change"),
        ),
      ),
    ];
  }
  if (field.type === "signatureDate") {
    return [
      head,
      h("p", { class: "sg-control-help" }, t("dateHelp", { date: today() })),
    ];
  }
  if (field.type === "checkbox") {
    const box = h("input", {
      type: "checkbox",
      id: "sg-value",
      checked: Boolean(state.values[key]),
      onchange: (event) => page.setValue(field, event.target.checked),
    });
    return [head, h("label", { class: "sg-check-label" }, box, t("checkboxLabel"))];
  }
  const multiline = field.type === "longText";
  const input = h(multiline ? "textarea" : "input", {
    id: "sg-value",
    class: "sg-input",
    maxlength: "1000",
    rows: multiline ? "3" : null,
    type: multiline ? null : { email: "email", date: "date" }[field.type] || "text",
    inputmode: field.type === "email" ? "email" : null,
    autocomplete: { fullName: "name", email: "email" }[field.type] || "off",
    required: true,
    "aria-describedby": "sg-field-error",
    oninput: (event) => page.setValue(field, event.target.value),
    onchange: () => {
      const problem = page.typeProblem(field);
      if (problem) page.showProblem(field, problem);
    },
    onkeydown: (event) => {
      if (event.key === "Enter" && !multiline) {
        event.preventDefault();
        page.submit();
      }
    },
  });
  input.value = String(state.values[key] ?? "");
  const label = h(
    "label",
    { class: "sg-label", for: "sg-value" },
    t("valueLabel", { label: labelOf(field).toLocaleLowerCase(pageLanguage()) }),
  );
  // A value the sender filled in (allowUpdates): the signer may change it, and is told so.
  if (field.value !== undefined && field.value !== null) {
    const help = h("p", { class: "sg-control-help", id: "sg-value-help" }, t("prefilled.help"));
    input.setAttribute("aria-describedby", "sg-value-help sg-field-error");
    return [head, help, label, input];
  }
  return [head, label, input];
}
