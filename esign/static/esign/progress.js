// The signer's work on the signing page (sign.js): the fields the guide visits and the values
// given so far (signingState), and what of it is done, how each box over a page reads, and where
// a field is (signingProgress). Apart from the page's rendering and its requests, so that
// sign.js keeps to the page.

import { h } from "#common/dom.js";
import {
  AUTOMATIC,
  PLACEHOLDERS,
  STAMPED,
  isRequired,
  keyOf,
  labelOf,
  today,
  valueProblem,
} from "./fields.js";
import { isLocked, isPrefilled } from "./prefilled.js";
import { t, tNodes } from "./strings.js";

// The state of the page's guide over ``allFields`` (sorted): the fields to visit, their values
// (the signer's name, unticked boxes, the sender's values the signer may change), and the rest
// empty.
export function signingState(config, allFields) {
  const state = {
    // The sender's values the signer may not change are shown, not visited (prefilled.js).
    fields: allFields.filter((field) => !AUTOMATIC.has(field.type) && !isLocked(field, config)),
    current: 0,
    values: {},
    accepted: new Set(),
    seen: new Set(), // the keys of the fields the guide has shown
    adoption: null, // {mode: "draw"|"text", drawn, typed, initials}
    errors: new Map(), // field key -> message from the server or the guide
    busy: false,
    controlKey: null,
    boxes: new Map(), // field key -> its box over the page
  };
  for (const field of state.fields) {
    if (field.type === "fullName") state.values[keyOf(field)] = config.signerName;
    if (field.type === "checkbox") state.values[keyOf(field)] = false;
    if (isPrefilled(field)) state.values[keyOf(field)] = field.value; // the sender's, to change
  }
  return state;
}

// What is done of ``state`` and how it shows; ``config`` is the page's (signing-config).
export function signingProgress(state, config) {
  const documentTitles = new Map((config.documents || []).map((doc) => [doc.id, doc.title]));

  function typeProblem(field) {
    return valueProblem(field, state.values[keyOf(field)]);
  }

  function isFilled(field) {
    const adoption = state.adoption;
    switch (field.type) {
      case "signature":
        return Boolean(adoption && (adoption.drawn || adoption.typed));
      case "initial":
        return Boolean(adoption && adoption.initials);
      case "signatureDate":
        return true;
      case "checkbox":
        return state.values[keyOf(field)] === true;
      default:
        return String(state.values[keyOf(field)] ?? "").trim() !== "" && !typeProblem(field);
    }
  }

  // Filled, or left empty where it may be once the guide has shown it; and accepted when each
  // field is to be accepted.
  function isDone(field) {
    const key = keyOf(field);
    const complete = isFilled(field) || (!isRequired(field) && state.seen.has(key));
    return complete && (!config.acceptEachField || state.accepted.has(key));
  }

  function doneCount() {
    return state.fields.filter(isDone).length;
  }

  function boxContent(field) {
    const key = keyOf(field);
    const adoption = state.adoption;
    if (field.type === "signature" && isFilled(field)) {
      return adoption.drawn
        ? h("img", { class: "sg-ink", src: adoption.drawn, alt: "" })
        : h("span", { class: "sg-hand" }, adoption.typed);
    }
    if (field.type === "initial" && isFilled(field)) {
      return h("span", { class: "sg-hand" }, adoption.initials);
    }
    if (field.type === "signatureDate") return h("span", { class: "sg-value" }, today());
    if (field.type === "checkbox") {
      return state.values[key] ? h("span", { class: "sg-check" }, "\u2713") : null;
    }
    const value = String(state.values[key] ?? "");
    if (!STAMPED.has(field.type) && value.trim()) return h("span", { class: "sg-value" }, value);
    return h("span", { class: "sg-placeholder" }, PLACEHOLDERS[field.type] ?? labelOf(field));
  }

  // Where a field of the list is: its page, and its document's name when the packet has several
  // (two "Signature, page 1" would not say which is which).
  function listWhere(field) {
    if (documentTitles.size > 1) return whereNodes(field);
    return t("list.page", { number: field.page + 1 });
  }

  function where(field) {
    const title = documentTitles.get(field.fileId) || field.fileId;
    return t("where", { number: field.page + 1, title });
  }

  // The same, to show: the document's title isolated (strings.js, tNodes).
  function whereNodes(field) {
    const title = documentTitles.get(field.fileId) || field.fileId;
    return tNodes("where", { number: field.page + 1, title });
  }

  return { typeProblem, isFilled, isDone, doneCount, boxContent, listWhere, where, whereNodes };
}
