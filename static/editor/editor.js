// The visual template editor: loads the working version and its PDF, then wires the toolbar,
// the pages, the side panel, the keyboard, saving and publishing together.
//
// Modules: state.js (the document, selection, undo), pages.js (rendering and the mouse),
// panel.js (properties), preview.js (the fill preview), api.js (the server), fields.js and
// geometry.js (field types and coordinates), dom.js (building elements).

import { Api } from "./api.js";
import { h, num } from "./dom.js";
import { TYPE_LABELS } from "./fields.js";
import { PagesView } from "./pages.js";
import { Panel } from "./panel.js";
import { Preview } from "./preview.js";
import { EditorState } from "./state.js";

const ZOOM_STEPS = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4];

const root = document.getElementById("editor");
const config = JSON.parse(document.getElementById("editor-config").textContent);
const $ = (selector) => root.querySelector(selector);
const action = (name) => root.querySelector(`[data-action="${name}"]`);

function toast(message, kind = "") {
  const item = h("div", { class: `ed-toast ${kind}`, role: "status" }, message);
  $(".ed-toasts").append(item);
  setTimeout(() => item.classList.add("is-leaving"), 3200);
  setTimeout(() => item.remove(), 3600);
}

async function boot() {
  const csrf = root.querySelector("input[name=csrfmiddlewaretoken]").value;
  const api = new Api(config.urls, csrf);
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

  let saving = null;
  let busy = "";

  // --- status -------------------------------------------------------------------------------
  function refreshStatus() {
    const status = $("#ed-status");
    let kind;
    let text;
    if (busy) {
      kind = "busy";
      text = busy;
    } else if (state.problems.length) {
      kind = "error";
      text = `Not saved: ${state.problems.length} problem${state.problems.length > 1 ? "s" : ""}`;
    } else if (state.dirty) {
      kind = "dirty";
      text = "Unsaved changes";
    } else {
      kind = "saved";
      text = "Saved";
    }
    status.dataset.status = kind;
    status.querySelector(".ed-status-text").textContent = text;
    root.dataset.dirty = state.dirty ? "true" : "false";

    const summary = state.summary || {};
    $("#ed-version").textContent = !summary.publishedNumber
      ? "Never published"
      : `Published v${summary.publishedNumber}${summary.hasUnpublishedChanges ? " · newer saved changes are not published" : ""}`;
    action("publish").disabled =
      Boolean(busy) || (!state.dirty && summary.hasUnpublishedChanges === false);
    action("save").disabled = Boolean(busy) || (!state.dirty && !state.problems.length);
    action("undo").disabled = !state.undoStack.length;
    action("redo").disabled = !state.redoStack.length;

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
    return `${field.alias} · ${TYPE_LABELS[field.type]} · x ${num(r.x)} y ${num(r.y)} · ${num(r.width)} × ${num(r.height)} pt`;
  }

  // --- saving and publishing ----------------------------------------------------------------
  async function save() {
    if (saving) await saving;
    if (!state.dirty && !state.problems.length) return true;
    saving = (async () => {
      const sentRevision = state.revision;
      const sentSpec = state.specForSave();
      const sentJson = state.json();
      busy = "Saving…";
      refreshStatus();
      const response = await api.save(sentSpec, state.title);
      busy = "";
      if (response.ok) {
        state.markSaved(sentRevision, sentJson, response.body);
        refreshStatus();
        return true;
      }
      if (response.status === 400 && Array.isArray(response.body.fields)) {
        state.setProblems(response.body.fields, sentSpec);
        const first = state.problems.find((p) => p.fieldId);
        if (first) view.revealField(first.fieldId);
        toast("Not saved: the template has problems (see the side panel).", "is-error");
      } else {
        toast(response.body.message || `Not saved (HTTP ${response.status}).`, "is-error");
      }
      refreshStatus();
      return false;
    })();
    try {
      return await saving;
    } finally {
      saving = null;
    }
  }

  async function publish() {
    if ((state.dirty || state.problems.length) && !(await save())) return;
    busy = "Publishing…";
    refreshStatus();
    const response = await api.publish();
    busy = "";
    if (response.ok) {
      state.summary = response.body.summary;
      toast(`Published as version ${response.body.publishedNumber}.`, "is-success");
    } else if (response.status === 400 && Array.isArray(response.body.fields)) {
      state.setProblems(response.body.fields, state.specForSave());
      toast("Not published: the template has problems (see the side panel).", "is-error");
    } else {
      toast(response.body.message || `Not published (HTTP ${response.status}).`, "is-error");
    }
    refreshStatus();
  }

  // --- actions shared by toolbar, panel and keyboard -----------------------------------------
  const actions = {
    revealField: (id) => view.revealField(id),
    optionTool: (id) => {
      state.select([id]);
      view.setTool("option");
    },
    wrapArray: () => {
      const result = state.wrapSelectionInArray();
      if (result.error) toast(result.error, "is-error");
      else
        toast(
          `Wrapped ${result.array.fieldIds.length} fields into the array "${result.array.alias}".`,
          "is-success",
        );
    },
    duplicate: () => {
      if (state.copy()) state.paste(state.selectedFields()[0]?.page ?? view.currentPage);
    },
    remove: () => {
      const count = state.deleteSelection();
      if (count > 1) toast(`Deleted ${count} fields (Ctrl/⌘+Z brings them back).`);
    },
  };

  const panel = new Panel($(".ed-panel"), { state, config, actions });
  panel.render();
  const preview = new Preview($("#ed-preview"), {
    api,
    state,
    pdfjs,
    ensureSaved: save,
    name: config.eid,
  });

  // --- toolbar --------------------------------------------------------------------------------
  const title = $("#ed-title");
  title.value = state.title;
  title.addEventListener("input", () => state.setTitle(title.value));

  const newType = $("#ed-new-type");
  for (const type of config.fieldTypes)
    newType.append(h("option", { value: type }, TYPE_LABELS[type] || type));
  newType.value = view.newType;
  newType.addEventListener("change", () => {
    view.newType = newType.value;
    view.setTool("draw");
  });

  action("tool-select").addEventListener("click", () => view.setTool("select"));
  action("tool-draw").addEventListener("click", () => view.setTool("draw"));
  action("undo").addEventListener("click", () => state.undo());
  action("redo").addEventListener("click", () => state.redo());
  action("save").addEventListener("click", () => save());
  action("publish").addEventListener("click", () => publish());
  action("preview").addEventListener("click", () => preview.open());
  action("zoom-in").addEventListener("click", () => zoomStep(1));
  action("zoom-out").addEventListener("click", () => zoomStep(-1));
  action("zoom-fit").addEventListener("click", () => view.setZoom(view.fitWidthZoom()));
  action("page-prev").addEventListener("click", () => view.scrollToPage(view.currentPage - 1));
  action("page-next").addEventListener("click", () => view.scrollToPage(view.currentPage + 1));
  action("tool-done").addEventListener("click", () => view.setTool("select"));
  const pageInput = $("#ed-page");
  pageInput.max = String(pdf.numPages);
  $("#ed-page-count").textContent = String(pdf.numPages);
  pageInput.addEventListener("change", () => view.scrollToPage(Number(pageInput.value) - 1));

  function zoomStep(direction) {
    const next =
      direction > 0
        ? ZOOM_STEPS.find((z) => z > view.zoom + 0.001) || view.zoom
        : [...ZOOM_STEPS].reverse().find((z) => z < view.zoom - 0.001) || view.zoom;
    view.setZoom(next);
  }

  view.addEventListener("zoom", (event) => {
    $("#ed-zoom").textContent = `${Math.round(event.detail * 100)}%`;
  });
  view.addEventListener("page", (event) => {
    pageInput.value = String(event.detail + 1);
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
    action("tool-select").classList.toggle("is-active", tool === "select");
    action("tool-draw").classList.toggle("is-active", tool === "draw");
    const banner = $(".ed-banner");
    banner.hidden = tool !== "option";
    if (tool === "option") {
      const field = state.selectedFields()[0];
      banner.querySelector(".ed-banner-text").textContent =
        `Drag on the page to add options to “${field ? field.alias : ""}”. Esc when done.`;
    }
  });
  view.setTool("select");

  state.addEventListener("change", (event) => {
    view.renderOverlays();
    if (event.detail.data && document.activeElement !== title) title.value = state.title;
    refreshStatus();
  });

  // --- keyboard ---------------------------------------------------------------------------------
  document.addEventListener("keydown", (event) => {
    const mod = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    if (mod && key === "s") {
      event.preventDefault();
      save();
      return;
    }
    if ($("#ed-preview").open) return;
    const typing =
      event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
    if (typing) {
      if (event.key === "Escape") event.target.blur();
      return;
    }
    const step = event.shiftKey ? 10 : 1;
    const arrows = {
      arrowleft: [-step, 0],
      arrowright: [step, 0],
      arrowup: [0, -step],
      arrowdown: [0, step],
    };
    if (key in arrows && state.selection.size) {
      event.preventDefault();
      const [dx, dy] = arrows[key];
      if (event.altKey) state.stretch(dx, dy);
      else state.nudge(dx, dy);
      return;
    }
    if (mod && key === "z") {
      event.preventDefault();
      if (event.shiftKey) state.redo();
      else state.undo();
    } else if (mod && key === "y") {
      event.preventDefault();
      state.redo();
    } else if (mod && key === "c") {
      if (!state.selection.size) return;
      event.preventDefault();
      const count = state.copy();
      toast(`Copied ${count} field${count > 1 ? "s" : ""}.`);
    } else if (mod && key === "v") {
      event.preventDefault();
      state.paste(view.currentPage);
    } else if (mod && key === "d") {
      event.preventDefault();
      actions.duplicate();
    } else if (mod && key === "a") {
      event.preventDefault();
      state.select(state.fieldsOnPage(view.currentPage).map((f) => f.id));
    } else if (event.key === "Delete" || event.key === "Backspace") {
      event.preventDefault();
      actions.remove();
    } else if (event.key === "Escape") {
      if (view.tool !== "select") view.setTool("select");
      else if (state.sub) state.selectSub([...state.selection][0], null);
      else state.clearSelection();
    } else if (mod || event.altKey) {
      // leave other browser shortcuts alone
    } else if (key === "v") {
      view.setTool("select");
    } else if (key === "r" || key === "n") {
      view.setTool("draw");
    } else if (key === "+" || key === "=") {
      zoomStep(1);
    } else if (key === "-") {
      zoomStep(-1);
    } else if (key === "0") {
      view.setZoom(view.fitWidthZoom());
    }
  });

  // Leaving with unsaved work asks first.
  window.addEventListener("beforeunload", (event) => {
    if (state.dirty) {
      event.preventDefault();
      event.returnValue = "";
    }
  });

  view.setZoom(Math.min(1.25, Math.max(0.5, view.fitWidthZoom())), { x: 0, y: 0 });
  view.scroller.scrollTo(0, 0);
  $("#ed-zoom").textContent = `${Math.round(view.zoom * 100)}%`;
  refreshStatus();
  root.dataset.state = "ready";
  // For tests and the curious: the editor's parts, from the browser console.
  window.templateEditor = { state, view, panel, save, publish };
}

boot().catch((error) => {
  console.error(error);
  root.dataset.state = "failed";
  const note = $(".ed-loading");
  note.hidden = false;
  note.textContent = `The editor could not start: ${error.message}`;
  note.classList.add("is-error");
});
