// The visual template editor: loads the working version and its PDF, then wires the toolbar,
// the pages, the side panel and the keyboard to the editor's actions.
//
// Modules: actions.js (what the user can do, with its keys and buttons); document-state.js (the
// document, selection, undo) and state.js (the changes made to it); saving.js (save and
// publish); detect.js (fields found on the pages, shown as a draft); pages.js (the pages, zoom
// and scrolling), page-canvas.js (drawing a page), overlays.js (the fields over the pages) and gestures.js (the mouse); panel.js (the side
// panel) with document-panel.js, field-panel.js, sub-rect-sections.js, format-section.js,
// style-controls.js and several-fields-panel.js (what it shows); preview.js (the fill preview);
// api.js (the server); fields.js (field types, declared by the server) and geometry.js (rects
// and boxes). "#common/..." (static/common/, named through the page's import map and, for Node,
// package.json's "imports") holds what the signing page shares: dom.js (building elements) and
// page-box.js (a page's rects on screen).

import { h, num } from "#common/dom.js";
import { postEvents } from "#embed/events.js";
import { ActionRegistry, EDITOR_ACTIONS } from "./actions.js";
import { Api } from "./api.js";
import { FieldDetector } from "./detect.js";
import { defineFieldTypes, fieldTypeNames, isSignerType, typeLabel } from "./fields.js";
import { PagesView } from "./pages.js";
import { Panel } from "./panel.js";
import { Preview } from "./preview.js";
import { Saver } from "./saving.js";
import { EditorState } from "./state.js";

const root = document.getElementById("editor");
const config = JSON.parse(document.getElementById("editor-config").textContent);
const $ = (selector) => root.querySelector(selector);

function toast(message, kind = "") {
  const item = h("div", { class: `ed-toast ${kind}`, role: "status" }, message);
  $(".ed-toasts").append(item);
  setTimeout(() => item.classList.add("is-leaving"), 3200);
  setTimeout(() => item.remove(), 3600);
}

async function boot() {
  defineFieldTypes(config.fieldTypes);
  // The admin's page has a CSRF token; the embedded builder's requests carry their link's token.
  const csrf = $("input[name=csrfmiddlewaretoken]");
  const api = new Api(config.urls, csrf ? csrf.value : "");
  const { pdfjs, pdf, state, view } = await openDocument(api);
  const saver = new Saver({ api, state, view, toast });
  if (config.embed) tellTheEmbeddingPage(saver, config.embed);
  const ensureSaved = () => saver.save();
  const preview = new Preview($("#ed-preview"), {
    api,
    state,
    pdfjs,
    ensureSaved,
    name: config.eid,
  });
  const detector = new FieldDetector($("#ed-detect"), { api, state, view, toast });
  const actions = new ActionRegistry({ state, view, saver, preview, detector, toast });
  actions.register(...EDITOR_ACTIONS);
  const panel = new Panel($(".ed-panel"), { state, config, actions });
  panel.render();
  actions.bindButtons(root.querySelectorAll(".ed-toolbar [data-action], .ed-banner [data-action]"));
  actions.listen(document, { paused: () => $("#ed-preview").open });
  wireInputs(state, view, pdf.numPages);
  wireView(state, view);
  watchChanges(state, view, saver, actions);

  view.setZoom(Math.min(1.25, Math.max(0.5, view.fitWidthZoom())), { x: 0, y: 0 });
  view.scroller.scrollTo(0, 0);
  $("#ed-zoom").textContent = `${Math.round(view.zoom * 100)}%`;
  openDetectOnArrival(state, detector);
  root.dataset.state = "ready";
}

// Embedded in an integrator's page (builders/): what is saved and published, and what the
// server refused, become events for its AnvilEmbedFrame (``embed.events`` names them).
function tellTheEmbeddingPage(saver, embed) {
  const post = (action, extra) =>
    postEvents([{ action, castEid: config.eid, ...embed.ids, ...extra }], embed.origins);
  saver.addEventListener("saved", () => post("castEdit", {}));
  saver.addEventListener("published", (event) =>
    post("castPublish", { versionNumber: event.detail.publishedNumber }),
  );
  saver.addEventListener("refused", (event) =>
    post("castError", {
      errorType: event.detail.body.name || "Error",
      error: event.detail.body.message || "",
      status: event.detail.status,
    }),
  );
}

// Just added from a PDF without form fields (the admin's add page sends "?added"): the fields
// are still to be found, so Detect fields opens and says so. Once: a reload opens the editor.
function openDetectOnArrival(state, detector) {
  const url = new URL(window.location.href);
  if (!url.searchParams.has("added")) return;
  url.searchParams.delete("added");
  window.history.replaceState(null, "", url);
  if (state.fields.length) return;
  detector.open();
  detector.say(
    "The template was added. Its PDF has no form fields: Detect finds the ones printed on " +
      "its pages (boxes, lines, checkboxes), or draw them with Field.",
  );
}

// pdf.js, the working version's PDF rendered into the pages, and the state loaded from the server.
async function openDocument(api) {
  const pdfjs = await import(config.urls.pdfjs);
  pdfjs.GlobalWorkerOptions.workerSrc = config.urls.pdfjsWorker;
  const [bytes, loaded] = await Promise.all([api.pdfBytes(), api.loadState()]);
  if (!loaded.ok) throw new Error(loaded.body.message || "The template could not be loaded.");
  const pdf = await pdfjs.getDocument({ data: bytes, isEvalSupported: false }).promise;
  const state = new EditorState();
  const view = new PagesView({ scroller: $(".ed-pages"), state, pdf });
  await view.open();
  state.viewports = view.baseViewports();
  state.load(loaded.body);
  return { pdfjs, pdf, state, view };
}

// After every change: redraw the fields, show the status; leaving with unsaved work asks first.
function watchChanges(state, view, saver, actions) {
  const title = $("#ed-title");
  const refresh = () => showStatus(state, saver, actions);
  state.addEventListener("change", (event) => {
    view.renderOverlays();
    if (event.detail.data && document.activeElement !== title) title.value = state.title;
    refresh();
  });
  saver.addEventListener("change", refresh);
  window.addEventListener("beforeunload", (event) => {
    if (state.dirty) {
      event.preventDefault();
      event.returnValue = "";
    }
  });
  refresh();
}

// The toolbar's inputs (its buttons are actions): the title, the type of new fields, the page.
function wireInputs(state, view, pageCount) {
  const title = $("#ed-title");
  title.value = state.title;
  title.addEventListener("input", () => state.setTitle(title.value));

  const newType = $("#ed-new-type");
  // Two groups: the types filled from data, and those a signer signs in a packet.
  const names = fieldTypeNames();
  for (const [label, signer] of [
    ["Filled from data", false],
    ["Signed in a packet", true],
  ]) {
    const options = names
      .filter((type) => isSignerType(type) === signer)
      .map((type) => h("option", { value: type }, typeLabel(type)));
    if (options.length) newType.append(h("optgroup", { label }, options));
  }
  newType.value = view.newType;
  newType.addEventListener("change", () => {
    view.newType = newType.value;
    view.setTool("draw");
  });

  const pageInput = $("#ed-page");
  pageInput.max = String(pageCount);
  $("#ed-page-count").textContent = String(pageCount);
  pageInput.addEventListener("change", () => view.scrollToPage(Number(pageInput.value) - 1));
}

// What the pages report: zoom, page in view, pointer, messages, the tool.
function wireView(state, view) {
  view.addEventListener("zoom", (event) => {
    $("#ed-zoom").textContent = `${Math.round(event.detail * 100)}%`;
  });
  view.addEventListener("page", (event) => {
    $("#ed-page").value = String(event.detail + 1);
  });
  view.addEventListener("pointer", (event) => {
    const { page, x, y } = event.detail;
    $("#ed-pointer").textContent = `Page ${page + 1} · x ${x.toFixed(1)} · y ${y.toFixed(1)} pt`;
  });
  view.addEventListener("message", (event) => toast(event.detail, "is-error"));
  view.addEventListener("focusproperties", () => {
    const alias = root.querySelector(".ed-panel [data-prop='alias']");
    if (alias) alias.select();
  });
  view.addEventListener("tool", (event) => {
    const tool = event.detail;
    // The tool buttons are toggles: the active one is marked for the eye and for screen readers.
    for (const [name, active] of [
      ["tool-select", tool === "select"],
      ["tool-draw", tool === "draw"],
    ]) {
      const button = $(`.ed-toolbar [data-action='${name}']`);
      button.classList.toggle("is-active", active);
      button.setAttribute("aria-pressed", String(active));
    }
    const banner = $(".ed-banner");
    banner.hidden = tool !== "option";
    if (tool === "option") {
      const field = state.selectedFields()[0];
      banner.querySelector(".ed-banner-text").textContent =
        `Drag on the page to add options to “${field ? field.alias : ""}”. Esc when done.`;
    }
  });
  view.setTool("select");
}

// The save state, the buttons that depend on it, the selection and the published version.
function showStatus(state, saver, actions) {
  const status = $("#ed-status");
  const problems = state.problems.length;
  const [kind, text] = saver.busy
    ? ["busy", saver.busy]
    : problems
      ? ["error", `Not saved: ${problems} problem${problems > 1 ? "s" : ""}`]
      : state.dirty
        ? ["dirty", "Unsaved changes"]
        : ["saved", "Saved"];
  status.dataset.status = kind;
  status.querySelector(".ed-status-text").textContent = text;
  root.dataset.dirty = state.dirty ? "true" : "false";
  actions.refreshButtons();
  const save = $(".ed-toolbar [data-action='save']");
  if (save) save.disabled = Boolean(saver.busy) || (!state.dirty && !problems);

  const summary = state.summary || {};
  $("#ed-version").textContent = !summary.publishedNumber
    ? "Never published"
    : `Published v${summary.publishedNumber}${summary.hasUnpublishedChanges ? " · newer saved changes are not published" : ""}`;
  const count = state.selection.size;
  $("#ed-selection").textContent =
    count === 0
      ? `${state.fields.length} fields`
      : count === 1
        ? describe(state.selectedFields()[0])
        : `${count} fields selected`;
}

function describe(field) {
  const r = field.rect;
  return `${field.alias} · ${typeLabel(field.type)} · x ${num(r.x)} y ${num(r.y)} · ${num(r.width)} × ${num(r.height)} pt`;
}

boot().catch((error) => {
  console.error(error);
  root.dataset.state = "failed";
  const note = $(".ed-loading");
  note.hidden = false;
  note.textContent = `The editor could not start: ${error.message}`;
  note.classList.add("is-error");
});
