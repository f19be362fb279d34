// The webform builder (admin/workflows/webform/<id>/builder/): starts the parts and wires them:
// the model (model.js), the list of pages and fields (outline.js), the settings of the selected
// one (panel.js), the live preview (preview.js) and saving (saving.js). See docs/workflows.md.

import { clear, h } from "#common/dom.js";
import { postEvents } from "#embed/events.js";
import { Model } from "./model.js";
import { Outline } from "./outline.js";
import { Panel } from "./panel.js";
import { Preview } from "./preview.js";
import { itemsWithProblems } from "./problems.js";
import { postJSON, requestJSON, save, serial } from "./saving.js";

const config = JSON.parse(document.getElementById("wfb-config").textContent);
const root = document.getElementById("wfb");
const nameInput = document.getElementById("wfb-name");
const nameError = document.getElementById("wfb-name-error");
const status = document.getElementById("wfb-status");
const problemsBox = document.getElementById("wfb-problems");
const announcer = document.getElementById("wfb-announce");
// Embedded in an integrator's page (builders/): what is saved and published become events for
// its AnvilEmbedFrame; an embedded link may grant neither button.
const tell = (action, extra = {}) => {
  if (config.embed) postEvents([{ action, ...config.embed.ids, ...extra }], config.embed.origins);
};

const model = new Model(config.catalogue);
const announce = (text) => {
  announcer.textContent = "";
  // A new text node each time, so that the same words are announced again.
  window.setTimeout(() => (announcer.textContent = text), 50);
};
const outline = new Outline(document.getElementById("wfb-outline-list"), model, { announce });
const panel = new Panel(
  document.getElementById("wfb-panel-body"),
  document.getElementById("wfb-panel-title"),
  model,
);
const preview = new Preview(
  [document.getElementById("wfb-frame-a"), document.getElementById("wfb-frame-b")],
  model,
  {
    urls: config.urls,
    slug: config.slug,
    postJSON,
  },
);
// A field or group added: its label is where one types next; a page added, its title.
outline.onAdded = () => panel.focusSetting("label");
outline.onPageAdded = () => panel.focusSetting("title");

function showStatus(kind, text) {
  status.dataset.status = kind;
  status.textContent = text;
  root.dataset.dirty = String(model.dirty);
}

function showProblems() {
  clear(problemsBox);
  const placed = itemsWithProblems(model);
  const count = placed.length + model.problems.length + (model.nameError ? 1 : 0);
  problemsBox.hidden = count === 0;
  nameError.hidden = !model.nameError;
  nameError.textContent = model.nameError;
  nameInput.toggleAttribute("aria-invalid", Boolean(model.nameError));
  if (!count) return;
  const list = h("ul");
  const unnamed = { page: "A page", group: "A new repeating group", field: "A new field" };
  for (const { uid, item, kind, messages } of placed) {
    const where = item.data.label || item.data.title || item.data.key || unnamed[kind];
    list.append(
      h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: "wfb-link",
            onclick: () => {
              model.select(uid);
              panel.focusFirst();
            },
          },
          `${where}: ${messages.join(" ")}`,
        ),
      ),
    );
  }
  for (const problem of model.problems) list.append(h("li", {}, problem.message));
  if (model.nameError) list.append(h("li", {}, `Name: ${model.nameError}`));
  problemsBox.append(
    h(
      "h2",
      { class: "wfb-problems-title" },
      count === 1 ? "Not saved: there is a problem" : `Not saved: there are ${count} problems`,
    ),
    list,
  );
}

model.onChange(({ selection, retype }) => {
  outline.render();
  if (selection) panel.render();
  else if (retype) panel.renderTypeSettings();
  else panel.sync();
  if (model.dirty) showStatus("dirty", "Unsaved changes");
  preview.schedule();
});

nameInput.addEventListener("input", () => model.setName(nameInput.value));

let saving = false;
async function doSave() {
  if (saving) return;
  saving = true;
  showStatus("saving", "Saving…");
  const result = await serial(() => save(model, config.urls.definition));
  saving = false;
  showProblems();
  if (result.saved && result.changedSince) {
    showStatus("dirty", "Unsaved changes (made while saving)");
  } else if (result.saved) {
    nameInput.value = model.name;
    showStatus("saved", "Saved");
    announce("Saved.");
    tell("weldEdit");
  } else if (result.problems) {
    showStatus("error", `Not saved: ${result.problems} problem${result.problems === 1 ? "" : "s"}`);
    problemsBox.focus();
    tell("weldError", { errorType: "ValidationError", error: `${result.problems} problem(s)` });
  } else {
    showStatus("error", `Not saved: ${result.message}`);
    tell("weldError", { errorType: "Error", error: result.message });
  }
}

document.getElementById("wfb-save")?.addEventListener("click", doSave);

// Publish: what is saved becomes the version people fill (the whole workflow's), after a save
// of what is not saved yet; a refusal says why in the status line.
const publishButton = document.getElementById("wfb-publish");
publishButton?.addEventListener("click", async () => {
  if (model.dirty) await doSave();
  if (model.dirty) return; // not saved: its problems are shown
  publishButton.disabled = true;
  showStatus("saving", "Publishing…");
  try {
    const published = await serial(() => postJSON(config.urls.publish, {}));
    showStatus("saved", `Published as version ${published.version}`);
    announce(`Published as version ${published.version}.`);
    tell("weldPublish", { versionNumber: published.version });
  } catch (error) {
    showStatus("error", `Not published: ${error.message}`);
    tell("weldError", { errorType: error.body?.name || "Error", error: error.message });
  } finally {
    publishButton.disabled = false;
  }
});
document.addEventListener("keydown", (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
    event.preventDefault();
    doSave();
  }
});
window.addEventListener("beforeunload", (event) => {
  if (model.dirty) event.preventDefault();
});

async function start() {
  try {
    const state = await requestJSON(config.urls.definition);
    model.load(state);
    nameInput.value = model.name;
    showStatus("saved", "Saved");
    root.dataset.state = "ready";
  } catch (error) {
    showStatus("error", `Could not load the webform: ${error.message}`);
    root.dataset.state = "failed";
  }
}

start();
