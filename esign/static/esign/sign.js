// The signing page: the documents with the signer's fields over them, a guide that walks the
// signer through the fields one by one, the adopted signature, declining, and finishing.
//
// Everything the page needs comes from the json_script "signing-config" and the data
// attributes of #signing (the token): no inline script, no interpolated JS.
// Requests carry the token in the X-Signing-Token header, never a cookie.

import { h } from "#common/dom.js";
import { AdoptDialog } from "./adopt.js";
import { AttachmentsPanel } from "./attachments.js";
import { controlFor } from "./controls.js";
import { DocumentsView } from "./documents.js";
import {
  AUTOMATIC,
  STAMPED,
  isRequired,
  keyOf,
  labelOf,
  sortFields,
  signatureBody,
  today,
} from "./fields.js";
import { setUpForward } from "./forward.js";
import { signingOutcome } from "./outcome.js";
import { isLocked, placePrefilled } from "./prefilled.js";
import { signingProgress, signingState } from "./progress.js";
import { setUpApproval } from "./review.js";
import { t, tNodes } from "./strings.js";

const root = document.getElementById("signing");
const config = JSON.parse(document.getElementById("signing-config").textContent);
const token = root.dataset.token || "";
const $ = (selector) => document.querySelector(selector);
const outcome = signingOutcome({ root, config, token });
const { notice, showCopies, showResult, post, linkRefused, notFinished, finished } = outcome;
const { setUpDecline, waitingMessage } = outcome;

// The files to attach (an extension), above the documents. The required ones count in the
// guide as fields do: Finish is not ready while one is missing.
const attachments = new AttachmentsPanel($("#sg-attachments"), config, token, {
  onChange: () => renderGuide(),
});

const prefersReducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

const allFields = sortFields(config.fields || [], config.documents || []);

const state = signingState(config, allFields);
const { typeProblem, isFilled, isDone, doneCount, boxContent, listWhere, where, whereNodes } =
  signingProgress(state, config);

// --- the boxes over the pages ---------------------------------------------------------------
function renderBox(field, index) {
  const key = keyOf(field);
  const el = state.boxes.get(key);
  if (!el) return;
  const done = isDone(field);
  el.className = [
    "sg-field",
    `sg-type-${field.type}`,
    index === state.current && "is-current",
    done && "is-done",
    state.errors.has(key) && "is-error",
  ]
    .filter(Boolean)
    .join(" ");
  // The box is named by what it shows ("Sign here", "AL"), then what it is, for a screen
  // reader (WCAG 2.5.3, label in name: a voice user says what they see).
  const content = boxContent(field);
  const shown = content?.textContent.trim();
  const what = t(done ? "box.done" : "box.todo", {
    label: labelOf(field),
    number: index + 1,
    total: state.fields.length,
  });
  el.setAttribute("aria-label", shown ? `${shown}, ${what}` : what);
  el.replaceChildren(...[content].filter(Boolean));
}

function renderBoxes() {
  state.fields.forEach((field, index) => renderBox(field, index));
  renderFieldList();
}

// The list of the signer's fields above the documents: each one, where it is, whether it is
// done; selecting one goes to it.
function renderFieldList() {
  const list = $("#sg-fieldlist-items");
  if (!list || root.dataset.state !== "ready") return;
  $("#sg-fieldlist").hidden = state.fields.length === 0;
  list.replaceChildren(
    ...state.fields.map((field, index) =>
      h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: [
              "sg-fieldlist-item",
              index === state.current && "is-current",
              isDone(field) && "is-done",
            ]
              .filter(Boolean)
              .join(" "),
            "aria-current": index === state.current ? "step" : null,
            onclick: () => select(index, { focus: true }),
          },
          h("span", { class: "sg-fieldlist-mark", "aria-hidden": "true" }, isDone(field) ? "\u2713" : String(index + 1)),
          h("span", { class: "sg-fieldlist-label" }, labelOf(field)),
          h("span", { class: "sg-fieldlist-where" }, listWhere(field)),
          h("span", { class: "sg-visually-hidden" }, t(isDone(field) ? "list.done" : "list.todo")),
        ),
      ),
    ),
  );
}

// --- the guide ------------------------------------------------------------------------------
// What the guide's control does, for controls.js.
const controlActions = {
  state,
  where,
  whereNodes,
  isFilled,
  typeProblem,
  adopt: () => adopt(),
  setValue: (field, value) => setValue(field, value),
  showProblem: (field, problem) => {
    state.errors.set(keyOf(field), problem);
    renderBoxes();
    renderGuide();
  },
  submit: () => (config.acceptEachField ? accept() : next()),
};

function renderGuide({ rebuild = false } = {}) {
  const fieldCount = state.fields.length;
  const field = state.fields[state.current];
  // The required files to attach count as fields: "2 of 3 completed" until the file is there,
  // and the guide names the first one missing once the fields are done.
  const files = attachments.requiredCount();
  const total = fieldCount + files.required;
  const done = doneCount() + files.attached;
  const missingFile = attachments.firstMissing();
  $("#sg-progress").textContent = fieldCount
    ? t("progress", { number: state.current + 1, total: fieldCount })
    : t("noFields");
  const count = $("#sg-count");
  if (done === total) count.textContent = t("allDone", { total });
  else if (missingFile && doneCount() === fieldCount) {
    count.replaceChildren(
      t("count", { done, total }),
      " ",
      h("span", { class: "sg-count-file" }, ...tNodes("attach.missing", { label: missingFile.label })),
    );
  } else count.textContent = t("count", { done, total });
  $("#sg-bar").max = Math.max(1, total);
  $("#sg-bar").value = done;
  $("#sg-prev").disabled = state.busy || state.current === 0;
  $("#sg-next").disabled = state.busy || state.current >= fieldCount - 1;
  const acceptButton = $("#sg-accept");
  const needsAccept =
    field &&
    config.acceptEachField &&
    !state.accepted.has(keyOf(field)) &&
    !(STAMPED.has(field.type) && !isFilled(field));
  acceptButton.hidden = !needsAccept;
  acceptButton.disabled = state.busy;
  if (field && (rebuild || state.controlKey !== keyOf(field))) {
    state.controlKey = keyOf(field);
    $("#sg-control").replaceChildren(...controlFor(field, controlActions));
  }
  const error = field ? state.errors.get(keyOf(field)) : null;
  $("#sg-field-error").textContent = error || "";
  $("#sg-field-error").hidden = !error;
  $("#sg-finish").classList.toggle("is-ready", total > 0 && done === total);
}

// On a phone the list of fields is one row that scrolls sideways: the current one is kept in
// view in it (without scrolling the page).
function showCurrentChip() {
  const list = $("#sg-fieldlist-items");
  const chip = list?.querySelector("[aria-current=step]");
  if (!chip || list.scrollWidth <= list.clientWidth) return;
  const box = list.getBoundingClientRect();
  const at = chip.getBoundingClientRect();
  if (at.left < box.left) list.scrollLeft -= box.left - at.left + 8;
  else if (at.right > box.right) list.scrollLeft += at.right - box.right + 8;
}

function announce(text) {
  const live = $("#sg-live");
  live.textContent = "";
  // A new text node after a tick is announced even when the text repeats.
  setTimeout(() => {
    live.textContent = text;
  }, 30);
}

function focusControl() {
  const acceptButton = $("#sg-accept");
  const target = $("#sg-value") || $("#sg-adopt-open") || (!acceptButton.hidden && acceptButton);
  (target || $("#sg-next")).focus({ preventScroll: true });
}

function select(index, { focus = false, announceIt = true, scroll = true } = {}) {
  if (!state.fields.length) return;
  state.current = Math.max(0, Math.min(state.fields.length - 1, index));
  const field = state.fields[state.current];
  state.seen.add(keyOf(field));
  renderBoxes();
  renderGuide();
  showCurrentChip();
  const box = state.boxes.get(keyOf(field));
  if (scroll) {
    box?.scrollIntoView({
      block: "center",
      inline: "nearest",
      behavior: prefersReducedMotion() ? "auto" : "smooth",
    });
  }
  if (announceIt) {
    announce(
      t("announce", {
        number: state.current + 1,
        total: state.fields.length,
        label: labelOf(field),
        where: where(field),
      }),
    );
  }
  if (focus) focusControl();
}

function nextIncomplete(after) {
  const total = state.fields.length;
  for (let step = 1; step <= total; step += 1) {
    const index = (after + step) % total;
    if (!isDone(state.fields[index])) return index;
  }
  return -1;
}

// After a field is done: the next one still to do, or Finish when there is none.
function advance() {
  const index = nextIncomplete(state.current);
  if (index >= 0) {
    select(index, { focus: true });
    return;
  }
  renderBoxes();
  renderGuide({ rebuild: true });
  const missingFile = attachments.firstMissing();
  if (missingFile) {
    announce(t("attach.missing", { label: missingFile.label }));
    return;
  }
  announce(t("announceAllDone", { total: state.fields.length }));
  $("#sg-finish").focus();
}

function next() {
  if (state.current < state.fields.length - 1) select(state.current + 1, { focus: true });
}

function previous() {
  if (state.current > 0) select(state.current - 1, { focus: true });
}

function setValue(field, value) {
  const key = keyOf(field);
  state.values[key] = value;
  state.errors.delete(key);
  renderBoxes();
  renderGuide();
}

function accept() {
  const field = state.fields[state.current];
  if (!field) return;
  if (!isFilled(field) && isRequired(field)) {
    state.errors.set(keyOf(field), typeProblem(field) || t("fillFirst"));
    renderBoxes();
    renderGuide();
    focusControl();
    return;
  }
  state.accepted.add(keyOf(field));
  state.errors.delete(keyOf(field));
  advance();
}

let adoptDialog = null;

async function adopt() {
  const field = state.fields[state.current];
  // From an initials field, only the initials are asked for (the signature has its own field).
  const initialsOnly = field?.type === "initial";
  const adoption = await adoptDialog.open(state.adoption, { initialsOnly });
  if (!adoption) return;
  state.adoption = adoption;
  for (const each of state.fields) {
    if (STAMPED.has(each.type)) state.errors.delete(keyOf(each));
  }
  // Adopting in a signature or initials field signs that field; with acceptEachField the
  // other ones still wait for their own click.
  if (field && STAMPED.has(field.type)) state.accepted.add(keyOf(field));
  renderBoxes();
  renderGuide({ rebuild: true });
  if (field && isDone(field)) advance();
  else focusControl();
}

// --- finishing and declining ----------------------------------------------------------------
function setBusy(busy, label = null) {
  state.busy = busy;
  const button = $("#sg-finish");
  button.disabled = busy;
  button.textContent = busy && label ? label : t("finish");
  button.setAttribute("aria-busy", busy ? "true" : "false");
  $("#sg-decline-open").disabled = busy;
  const forward = $("#sg-forward-open");
  if (forward) forward.disabled = busy;
  renderGuide();
}

function fieldForProblem(property) {
  if (property.startsWith("signature")) return state.fields.find((f) => f.type === "signature");
  if (property === "initials") return state.fields.find((f) => f.type === "initial");
  return state.fields.find((f) => keyOf(f) === property);
}

async function finish() {
  if (state.busy) return;
  const missing = state.fields.findIndex((field) => !isDone(field));
  if (missing >= 0) {
    const field = state.fields[missing];
    if (!isRequired(field) && !state.seen.has(keyOf(field))) {
      // Not shown yet: the guide shows it, with nothing wrong about it.
      select(missing, { focus: true });
      return;
    }
    const left = state.fields.length - doneCount();
    state.errors.set(
      keyOf(field),
      typeProblem(field) ||
        (left === 1 ? t("completeOne") : t("completeMany", { left })),
    );
    select(missing, { focus: true });
    return;
  }
  if (attachments.missingBeforeFinish()) {
    renderGuide();
    return;
  }
  notice("");
  setBusy(true, t("signing"));
  let result;
  try {
    result = await post(config.completeUrl, signatureBody(state.fields, state.values, state.adoption));
  } catch {
    setBusy(false);
    notice(t("unreachable"));
    return;
  }
  const { response, data } = result;
  if (response.ok) {
    if (!data.redirectURL) showCopies({ sealed: false, copies: data.copies });
    finished(data, {
      stateName: "done",
      title: t("done"),
      text: t(data.event && data.event.nextSignerEid ? "doneNext" : "doneText"),
    });
    return;
  }
  setBusy(false);
  if (response.status === 400 && Array.isArray(data.fields)) {
    if (attachments.showProblems(data.fields)) return;
    let first = -1;
    for (const problem of data.fields) {
      const field = fieldForProblem(String(problem.property || ""));
      if (!field) continue;
      state.errors.set(keyOf(field), problem.message);
      const index = state.fields.indexOf(field);
      if (first < 0 || index < first) first = index;
    }
    if (first >= 0) select(first, { focus: true });
    else notice(data.fields.map((p) => p.message).join(" "));
    return;
  }
  notFinished(response, data);
}

// --- starting -------------------------------------------------------------------------------
async function start() {
  if (!config.canSign) {
    root.dataset.state = "waiting";
    notice(waitingMessage(), "info");
  }
  const view = new DocumentsView($("#sg-documents"), config.documents || [], {
    token,
    widths: config.pageWidths || [],
    sizes: config.pageSizes || "",
  });
  // The sender's values not stamped yet, the signer's own they may not change and the other
  // signers', shown over the pages whether or not it is this signer's turn (prefilled.js).
  placePrefilled(view, [
    ...(config.signerStatus === "completed" ? [] : allFields.filter((f) => isLocked(f, config))),
    ...(config.prefilled || []),
  ]);
  if (config.signerStatus === "completed") showCopies();
  if (!config.canSign) return;
  if (config.role === "approver") {
    // Nothing to fill: Approve, or Reject (the decline dialog) with a reason (review.js).
    setUpDecline();
    setUpForward({ config, post, showResult, linkRefused });
    setUpApproval({ config, post, finished, notice, showCopies, notFinished });
    root.dataset.state = "ready";
    return;
  }

  for (const field of allFields.filter((each) => AUTOMATIC.has(each.type))) {
    const box = h(
      "span",
      { class: `sg-field sg-type-${field.type} is-done is-automatic`, dataset: { key: keyOf(field) } },
      h("span", { class: "sg-value" }, today()),
    );
    view.place(field, box);
  }
  for (const [index, field] of state.fields.entries()) {
    const box = h("button", {
      type: "button",
      class: "sg-field",
      tabindex: "-1", // the guide's Previous and Next reach every field from the keyboard
      dataset: { key: keyOf(field), type: field.type },
      onclick: () => {
        select(index, { focus: true });
        if (STAMPED.has(field.type) && !isFilled(field)) adopt();
        else if (
          config.acceptEachField &&
          STAMPED.has(field.type) &&
          !state.accepted.has(keyOf(field))
        ) {
          accept(); // with acceptEachField, a click on a signature field signs it
        }
      },
    });
    if (view.place(field, box)) state.boxes.set(keyOf(field), box);
  }
  adoptDialog = new AdoptDialog($("#sg-adopt"), {
    signatureMode: config.signatureMode,
    name: config.signerName,
    needsInitials: state.fields.some((f) => f.type === "initial"),
  });
  $("#sg-prev").addEventListener("click", previous);
  $("#sg-next").addEventListener("click", next);
  $("#sg-accept").addEventListener("click", accept);
  $("#sg-finish").addEventListener("click", finish);
  setUpDecline();
  setUpForward({ config, post, showResult, linkRefused });
  root.dataset.state = "ready";
  // The page opens at the top of the first document; the guide and the list of fields lead
  // to each field.
  select(0, { announceIt: false, scroll: false });
  renderFieldList();
  keepCurrentInView();
}

// When the window changes size (a phone turned, its keyboard shown, a resized frame), the
// pages change height: bring the current field back into view.
function keepCurrentInView() {
  let last = null;
  new ResizeObserver(([entry]) => {
    const { width, height } = entry.contentRect;
    const changed =
      last && (Math.abs(width - last.width) >= 1 || Math.abs(height - last.height) >= 1);
    last = { width, height };
    if (!changed || root.dataset.state !== "ready") return;
    const field = state.fields[state.current];
    const box = field && state.boxes.get(keyOf(field));
    box?.scrollIntoView({ block: "center", inline: "nearest" });
  }).observe($("#sg-main"));
}

start();
