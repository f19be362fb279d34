// Repeating groups of a webform page: entries added and removed in the browser (a copy of the
// group's blank entry, within its minimum and maximum), their inputs named by entry
// ("items.0.price", renumbered when one goes), and the fields of each entry as the checks see
// them. Without this script the Add and Remove buttons post the page, and the server does the
// same (workflows/pages/post.py).
import { M } from "./checks.js";

const fill = (text, values) => text.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
const ATTRIBUTES = ["name", "id", "for", "aria-describedby", "data-key", "href"];

export function groupElements(form) {
  return [...form.querySelectorAll(".wf-repeat[data-group]")];
}

function entries(box) {
  return [...box.querySelector(".wf-entries").children];
}

// The fields of every entry of the group, keyed as their inputs are named.
export function entryFields(box, group, strings) {
  return entries(box).flatMap((_, index) =>
    group.fields.map((field) => ({
      ...field,
      key: `${group.key}.${index}.${field.key}`,
      // The author's labels isolated (FSI ... PDI) in the sentence, as the server's are.
      summaryLabel: strings.entryField
        .replace("%(group)s", `\u2068${group.label}\u2069`)
        .replace("%(number)s", String(index + 1))
        .replace("%(field)s", `\u2068${field.label}\u2069`),
    })),
  );
}

// The message about the group as a whole: fewer entries than its minimum (when required).
export function groupMessage(box, group, enforceRequired = true) {
  const count = entries(box).length;
  if (count > group.maxEntries) return fill(M.groupMax, { max: group.maxEntries });
  if (enforceRequired && count < group.minEntries) return fill(M.groupMin, { min: group.minEntries });
  return "";
}

export function showGroupMessage(box, message) {
  const error = box.querySelector(`#${CSS.escape(box.id)}-error`);
  box.classList.toggle("has-error", Boolean(message));
  error.textContent = message;
  error.hidden = !message;
}

function renumber(box, group, strings) {
  const named = new RegExp(`${group.key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.(?:\\d+|__i__)\\.`, "g");
  entries(box).forEach((entry, index) => {
    for (const element of entry.querySelectorAll("*")) {
      for (const attribute of ATTRIBUTES) {
        const value = element.getAttribute(attribute);
        if (value) element.setAttribute(attribute, value.replace(named, `${group.key}.${index}.`));
      }
    }
    const number = { number: index + 1 };
    entry.querySelector(".wf-entry-title").textContent = fill(strings.entry, number);
    const remove = entry.querySelector(".wf-remove");
    remove.textContent = fill(strings.remove, number);
    remove.value = `remove:${group.key}:${index}`;
  });
  const count = entries(box).length;
  box.querySelector(`input[name="${CSS.escape(group.key)}.entries"]`).value = String(count);
  box.querySelector(".wf-add").disabled = count >= group.maxEntries;
  for (const remove of box.querySelectorAll(".wf-entries .wf-remove")) remove.hidden = count <= group.minEntries;
}

// Add and Remove in the browser; ``changed`` runs after each (the page rechecks).
export function setUpGroup(box, group, strings, changed) {
  const status = box.querySelector(".wf-status");
  box.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button || !box.contains(button)) return;
    if (button.classList.contains("wf-add")) {
      event.preventDefault();
      if (entries(box).length >= group.maxEntries) return;
      const entry = box.querySelector("template.wf-blank").content.firstElementChild.cloneNode(true);
      box.querySelector(".wf-entries").append(entry);
      renumber(box, group, strings);
      status.textContent = fill(strings.entry, { number: entries(box).length });
      entry.querySelector("input:not([type=hidden]), select, textarea")?.focus();
      changed();
    } else if (button.classList.contains("wf-remove")) {
      event.preventDefault();
      const entry = button.closest(".wf-entry");
      const index = entries(box).indexOf(entry);
      entry.remove();
      renumber(box, group, strings);
      status.textContent = fill(strings.removed, { number: index + 1 });
      const left = entries(box);
      (left[Math.min(index, left.length - 1)]?.querySelector("input:not([type=hidden]), select, textarea") ||
        box.querySelector(".wf-add")).focus();
      changed();
    }
  });
  renumber(box, group, strings);
}
