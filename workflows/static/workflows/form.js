// A webform page: the server's checks (checks.js, from workflows/engine/rules.py), applied in the
// browser with the same rules and messages before the page is sent, conditional fields, repeating
// groups (groups.js), and the page's events for an embedding page (embed.js). The server checks
// again whatever this script says; without the script the page still works, one round trip per
// check. What it writes on the page comes from the server, in the reader's language.
import { M, PARTS, check, conditionHolds, invalidParts, rules } from "./checks.js";
import { postEvents, readConfig } from "./embed.js";
import { entryFields, groupElements, groupMessage, setUpGroup, showGroupMessage } from "./groups.js";
import { smaller } from "./photos.js";

export { check, hasValue, invalidParts, nationalNumber } from "./checks.js";

const config = readConfig("wf-config");
const strings = readConfig("wf-strings");
const form = document.getElementById("wf-form");
const summary = document.getElementById("wf-summary");
const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));

const input = (name) => form.elements.namedItem(name);

// Text with the author's words in it (between FSI and PDI, as the server and groups.js mark
// them) as nodes, each of those words in a <bdi>: it keeps its own direction in the sentence
// ("Do you have pets?" on an Arabic page), and the text reads the same.
function isolatedNodes(text) {
  return String(text)
    .split(/\u2068([^\u2068\u2069]*)\u2069/)
    .map((part, index) => {
      if (index % 2 === 0) return part;
      const bdi = document.createElement("bdi");
      bdi.textContent = part;
      return bdi;
    });
}

function rawValue(field) {
  if (field.type === "checkbox") return Boolean(input(field.key)?.checked);
  if (field.type === "imageFile") return imageMessage(field);
  const names = PARTS[field.type];
  if (!names) {
    const element = input(field.key);
    if (element instanceof RadioNodeList) return element.value || null;
    return element ? element.value : null;
  }
  const raw = {};
  for (const name of names) raw[name] = input(`${field.key}.${name}`)?.value ?? "";
  return raw;
}

function imageMessage(field) {
  const file = input(`${field.key}.file`)?.files?.[0];
  if (!file) {
    const kept = input(field.key)?.value;
    return field.required && !kept ? M.required : "";
  }
  const ok = rules.limits.imageTypes.includes(file.type) && file.size > 0 && file.size <= rules.limits.imageUploadBytes;
  return ok ? "" : M.image;
}

let scaling = 0;

async function fitChosen(field) {
  const element = input(`${field.key}.file`);
  const file = element?.files?.[0];
  const note = document.getElementById(`f-${field.key}-note`);
  if (!file || file.size <= rules.limits.imageBytes || imageMessage(field)) return;
  if (typeof createImageBitmap !== "function" || typeof DataTransfer !== "function") return;
  scaling += 1;
  form.dataset.state = "scaling";
  try {
    const fitted = await smaller(file, rules.limits.imageBytes);
    if (fitted) {
      const transfer = new DataTransfer();
      transfer.items.add(fitted);
      element.files = transfer.files;
      if (note) {
        const sizes = { before: Math.round(file.size / 1024), after: Math.round(fitted.size / 1024) };
        note.textContent = fill(strings.madeSmaller, sizes);
        note.hidden = false;
      }
    }
  } catch {
    // not an image this browser can draw: sent as it is, and the server says what it is
  } finally {
    scaling -= 1;
    if (!scaling) form.dataset.state = "ready";
  }
}

// Whether ``field`` is shown: its showWhen (checks.js's conditionHolds) holds on the values of
// the fields it names, read on this page (a hidden one's as none) or, for an earlier page's,
// from ``rules.earlier`` (workflows.engine.resolve.check_fields).
export function isShown(field, fields = rules.fields, earlier = rules.earlier, read = givenValue) {
  if (!field.showWhen) return true;
  return conditionHolds(field.showWhen, reader(fields, earlier, read));
}

function reader(fields = rules.fields, earlier = rules.earlier, read = givenValue) {
  return (key) => {
    const source = fields.find((f) => f.key === key);
    if (!source) return earlier?.[key];
    return isShown(source, fields, earlier, read) ? read(source) : null;
  };
}

// The value a showWhen looks at: an image field's is its file (chosen now, or kept).
function givenValue(field) {
  if (field.type !== "imageFile") return rawValue(field);
  return input(`${field.key}.file`)?.files?.length ? "file" : input(field.key)?.value || null;
}


function showConditional() {
  for (const field of rules.fields) {
    const box = container(field);
    if (box && field.showWhen) box.hidden = !isShown(field);
  }
  // Next or Finish, and "Step n of m": the later pages of this webform shown now (each
  // condition as the server's screen steps count it), and the steps of the webforms after it.
  const steps = rules.next;
  if (!steps) return;
  const shownLater = steps.later.filter((condition) => !condition || conditionHolds(condition, reader())).length;
  const next = document.getElementById("wf-next");
  if (next) next.textContent = steps.moreWebforms || shownLater ? strings.next : strings.finish;
  const total = steps.stepNumber + shownLater + steps.stepsAfter;
  const line = document.getElementById("wf-step");
  // The page's title is the author's: in a <bdi> in the sentence, as the server draws it.
  if (line) line.replaceChildren(...isolatedNodes(fill(strings.step, { number: steps.stepNumber, total, title: `\u2068${steps.title}\u2069` })));
  const bar = document.getElementById("wf-bar");
  if (bar) bar.max = total;
}

function container(field) {
  return form.querySelector(`.wf-field[data-key="${CSS.escape(field.key)}"]`);
}

function show(field, message) {
  const box = container(field);
  const error = document.getElementById(`f-${field.key}-error`);
  box.classList.toggle("has-error", Boolean(message));
  error.textContent = message;
  error.hidden = !message;
  const names = PARTS[field.type];
  const marked = names ? new Set(invalidParts(field, rawValue(field), message).map((p) => `${field.key}.${p}`)) : null;
  for (const element of box.querySelectorAll("input:not([type=hidden]), select, textarea")) {
    const invalid = Boolean(message) && (!marked || marked.has(element.name));
    if (invalid) element.setAttribute("aria-invalid", "true");
    else element.removeAttribute("aria-invalid");
  }
}

function showSummary(failures) {
  summary.replaceChildren();
  if (!failures.length) {
    summary.hidden = true;
    return;
  }
  const title = document.createElement("h2");
  title.className = "wf-summary-title";
  title.textContent = failures.length === 1 ? strings.oneProblem : fill(strings.problems, { count: failures.length });
  const list = document.createElement("ul");
  for (const [target, label, message] of failures) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = `#${target}`;
    // The field's label is the author's (a group's entry: a sentence with the author's words).
    const name = document.createElement("bdi");
    name.append(...isolatedNodes(label));
    link.append(name, `: ${message}`);
    item.append(link);
    list.append(item);
  }
  summary.append(title, list);
  summary.hidden = false;
  summary.focus();
}

// The page's fields: those outside groups, then each entry's of each group (named by entry).
const groups = form ? groupElements(form).map((box) => [box, rules.groups.find((g) => g.key === box.dataset.group)]) : [];
const fields = () => [...rules.fields, ...groups.flatMap(([box, group]) => entryFields(box, group, strings))];

// Messages appear when the page is sent (never while someone moves between fields, which would
// shift the page under the pointer), then follow the value as it is corrected.
const touched = new Set();
let sending = false;

function recheck(field) {
  if (touched.has(field.key)) show(field, check(field, rawValue(field)));
}

function fieldOf(target) {
  const key = target.closest(".wf-field")?.dataset.key;
  return key ? fields().find((f) => f.key === key) : null;
}

if (form) {
  for (const box of form.querySelectorAll(".wf-field.has-error")) touched.add(box.dataset.key); // refused by the server
  form.addEventListener("input", (event) => {
    const field = fieldOf(event.target);
    if (field) recheck(field);
    showConditional();
  });
  form.addEventListener("change", (event) => {
    const field = fieldOf(event.target);
    if (field && event.target.matches("input[type=file]")) fitChosen(field);
    if (field && event.target.matches("select, input[type=checkbox], input[type=radio], input[type=file]")) {
      recheck(field);
    }
    showConditional();
  });
  for (const [box, group] of groups) {
    setUpGroup(box, group, strings, () => {
      if (box.classList.contains("has-error")) showGroupMessage(box, groupMessage(box, group));
    });
  }
  form.addEventListener("submit", (event) => {
    if (sending) {
      event.preventDefault();
      return;
    }
    if (scaling) {
      // A photo is being made smaller: the page is sent once it is.
      event.preventDefault();
      const submitter = event.submitter;
      const wait = setInterval(() => {
        if (scaling) return;
        clearInterval(wait);
        form.requestSubmit(submitter);
      }, 50);
      return;
    }
    if (event.submitter?.value === "back") {
      // Back never blocks: what is typed is sent as it is, kept, and checked on the way forward.
      sending = true;
      form.dataset.state = "sending";
      return;
    }
    const failures = [];
    for (const field of rules.fields) {
      if (!isShown(field)) continue; // hidden: not required, dropped by the server
      const message = check(field, rawValue(field));
      touched.add(field.key);
      show(field, message);
      if (message) failures.push([`f-${field.key}`, field.label, message]);
    }
    for (const [box, group] of groups) {
      const message = groupMessage(box, group);
      showGroupMessage(box, message);
      if (message) failures.push([box.id, group.label, message]);
      for (const field of entryFields(box, group, strings)) {
        const fieldMessage = check(field, rawValue(field));
        touched.add(field.key);
        show(field, fieldMessage);
        if (fieldMessage) failures.push([`f-${field.key}`, field.summaryLabel, fieldMessage]);
      }
    }
    if (failures.length) {
      event.preventDefault();
      showSummary(failures);
      return;
    }
    sending = true;
    form.dataset.state = "sending";
  });
  showConditional();
  form.dataset.state = "ready";
  if (!summary.hidden) summary.focus();
}

document.body.dataset.posted = String(postEvents(config.events, config.origins));
if (config.continueUrl) {
  try {
    history.replaceState(null, "", config.continueUrl);
  } catch {
    // another origin than the page's: the address stays as it is
  }
}
