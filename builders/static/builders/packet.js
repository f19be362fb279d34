// The embedded packet builder (builders/packet_views.py): documents (templates the link names,
// or PDFs uploaded here), signers and their routing order, fields placed on the pages, then one
// request that creates the packet with createEtchPacket's own code. Pages are drawn by pdf.js;
// a tap or click (or the button above a page) places a field of the chosen type for the signer,
// converted to PDF points by #common/page-box.js, as the template editor and the signing page
// do. A placed field moves by dragging it or with the arrow keys (packet-fields.js). The
// embedding page hears etchPacketSent (etchPacketSaved for a draft) or etchPacketError.

import { clear, h } from "#common/dom.js";
import { boxToRectWithin } from "#common/page-box.js";
import { postEvents } from "#embed/events.js";
import { movableField, templateField } from "./packet-fields.js";
import { markProblems, packetRequest } from "./packet-request.js";

const root = document.getElementById("packet-builder");
const config = JSON.parse(document.getElementById("packet-config").textContent);
const S = config.strings;
const $ = (selector) => root.querySelector(selector);
const MAX_SCALE = 1.5;

const state = { docs: [], signers: [], fields: [], shown: null, counters: {} };
let pdfjs = null;

function say(template, values = {}) {
  return template.replace(/%\((\w+)\)s/g, (_, key) => String(values[key] ?? ""));
}

// file1, signer1, field1...: one count per kind, never reused (a removed signer's id stays gone).
function nextId(prefix) {
  state.counters[prefix] = (state.counters[prefix] || 0) + 1;
  return `${prefix}${state.counters[prefix]}`;
}

function message(text, isError = false) {
  const node = $("#pb-message");
  node.textContent = text;
  node.classList.toggle("is-error", isError);
}

function post(action, extra) {
  postEvents([{ action, ...config.embed.ids, ...extra }], config.embed.origins);
}

// --- documents ---------------------------------------------------------------------------------

async function loadPdf(bytes) {
  if (!pdfjs) {
    pdfjs = await import(config.urls.pdfjs);
    pdfjs.GlobalWorkerOptions.workerSrc = config.urls.pdfjsWorker;
  }
  // pdf.js takes the buffer it is given: keep a copy to send.
  return pdfjs.getDocument({ data: bytes.slice(), isEvalSupported: false }).promise;
}

async function addTemplate(eid) {
  const url = (name) => config.urls[name].replace("EID", encodeURIComponent(eid));
  const [info, pdfResponse] = await Promise.all([
    fetch(url("template")).then((r) => r.json()),
    fetch(url("templatePdf")),
  ]);
  if (!pdfResponse.ok) throw new Error(info.message || `HTTP ${pdfResponse.status}`);
  const bytes = new Uint8Array(await pdfResponse.arrayBuffer());
  const doc = { id: nextId("file"), title: info.title, castEid: eid, pdf: await loadPdf(bytes) };
  doc.templateFields = info.fields.map((field) => ({ ...field, signer: "" }));
  addDoc(doc);
}

async function addUpload(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (String.fromCharCode(...bytes.slice(0, 5)) !== "%PDF-") {
    message(S.notPdf, true);
    return;
  }
  const title = file.name.replace(/\.pdf$/i, "") || say(S.document, { n: state.docs.length + 1 });
  const doc = { id: nextId("file"), title, upload: { bytes, filename: file.name } };
  doc.pdf = await loadPdf(bytes);
  doc.templateFields = [];
  addDoc(doc);
}

function addDoc(doc) {
  state.docs.push(doc);
  state.shown = doc.id;
  message("");
  render();
}

function removeDoc(doc) {
  state.docs = state.docs.filter((d) => d !== doc);
  state.fields = state.fields.filter((f) => f.docId !== doc.id);
  if (state.shown === doc.id) state.shown = state.docs.length ? state.docs[0].id : null;
  render();
}

// --- signers -----------------------------------------------------------------------------------

function addSigner() {
  const n = state.signers.length + 1;
  state.signers.push({
    id: nextId("signer"),
    name: "",
    email: "",
    signerType: "email",
    routingOrder: n,
  });
  render();
  const inputs = root.querySelectorAll(".pb-signer input[type=text]");
  if (inputs.length) inputs[inputs.length - 1].focus();
}

function signerLabel(signer) {
  const n = state.signers.indexOf(signer) + 1;
  return signer.name.trim() || say(S.signer, { n });
}

function signerRow(signer) {
  const n = state.signers.indexOf(signer) + 1;
  const id = (what) => `pb-${signer.id}-${what}`;
  const bind = (key, cast = String) => (event) => {
    signer[key] = cast(event.target.value);
    renderFieldControls();
    renderFields();
  };
  const type = h(
    "select",
    { id: id("type"), onchange: bind("signerType") },
    h("option", { value: "email" }, S.byEmail),
    h("option", { value: "embedded" }, S.embedded),
  );
  type.value = signer.signerType;
  return h(
    "li",
    { class: "pb-signer" },
    h("label", { class: "pb-visually-hidden", for: id("name") }, say(S.nameOf, { signer: say(S.signer, { n }) })),
    h("input", {
      id: id("name"),
      type: "text",
      value: signer.name,
      placeholder: S.name,
      autocomplete: "off",
      oninput: bind("name"),
    }),
    h("label", { class: "pb-visually-hidden", for: id("email") }, say(S.emailOf, { signer: say(S.signer, { n }) })),
    h("input", {
      id: id("email"),
      type: "email",
      value: signer.email,
      placeholder: S.email,
      autocomplete: "off",
      oninput: bind("email"),
    }),
    h(
      "div",
      { class: "pb-signer-tail" },
      h("label", { for: id("type"), class: "pb-visually-hidden" }, say(S.typeOf, { signer: say(S.signer, { n }) })),
      type,
      h("label", { for: id("order") }, S.order),
      h("input", {
        id: id("order"),
        type: "number",
        min: "1",
        value: String(signer.routingOrder),
        oninput: bind("routingOrder", Number),
      }),
      h(
        "button",
        {
          type: "button",
          class: "pb-btn",
          "aria-label": `${S.remove} ${say(S.signer, { n })}`,
          onclick: () => {
            state.signers = state.signers.filter((s) => s !== signer);
            state.fields = state.fields.filter((f) => f.signer !== signer.id);
            render();
          },
        },
        S.remove,
      ),
    ),
  );
}

// --- fields ------------------------------------------------------------------------------------

function typeLabel(name) {
  const type = config.fieldTypes.find((t) => t.name === name);
  return type ? type.label : name;
}

function chosen() {
  const signer = state.signers.find((s) => s.id === $("#pb-field-signer").value);
  const type = config.fieldTypes.find((t) => t.name === $("#pb-field-type").value);
  return { signer, type };
}

// A field of the chosen type, centred on the point (CSS pixels on the page) and kept on it;
// then focused, so that the arrow keys move it.
function place(doc, pageIndex, view, x, y) {
  const { signer, type } = chosen();
  if (!signer) {
    message(S.noSigner, true);
    return;
  }
  const [w, hgt] = type.size;
  const box = {
    left: x - (w * view.scale) / 2,
    top: y - (hgt * view.scale) / 2,
    width: w * view.scale,
    height: hgt * view.scale,
  };
  const [x0, y0, x1, y1] = view.view;
  const rect = boxToRectWithin(view.viewport, box, { x0, y0, x1, y1 });
  state.fields.push({
    id: nextId("field"),
    docId: doc.id,
    type: type.name,
    page: pageIndex,
    rect,
    signer: signer.id,
  });
  message("");
  renderFields();
  renderOverlays();
  root.querySelector(`.pb-field[data-field-id="${state.fields.at(-1).id}"]`)?.focus();
}

function fieldRow(field) {
  const doc = state.docs.find((d) => d.id === field.docId);
  const signer = state.signers.find((s) => s.id === field.signer);
  const text = `${doc.title}: ${say(S.fieldOf, { type: typeLabel(field.type), page: field.page + 1 })} · ${signer ? signerLabel(signer) : ""}`;
  return h(
    "li",
    {},
    h("span", {}, text),
    h(
      "button",
      {
        type: "button",
        class: "pb-btn",
        "aria-label": `${S.remove}: ${text}`,
        onclick: () => {
          state.fields = state.fields.filter((f) => f !== field);
          renderFields();
          renderOverlays();
        },
      },
      S.remove,
    ),
  );
}

// A template's own signer fields: each is given to a signer (or to nobody: left out).
function templateFieldRow(doc, field) {
  const id = `pb-${doc.id}-${field.id}`;
  const select = h(
    "select",
    {
      id,
      onchange: (event) => {
        field.signer = event.target.value;
        renderOverlays();
      },
    },
    h("option", { value: "" }, S.unassigned),
    state.signers.map((s) => h("option", { value: s.id }, signerLabel(s))),
  );
  select.value = field.signer;
  const label = `${doc.title}: ${field.alias || field.id} (${say(S.fieldOf, { type: typeLabel(field.type), page: field.page + 1 })})`;
  return h("li", {}, h("label", { for: id }, label), select);
}

// --- pages -------------------------------------------------------------------------------------

// Drawn again when the document shown or the column's width changes; a newer drawing stops an
// older one still under way (``drawing`` counts them).
let drawing = 0;
let drawnWidth = 0;

async function renderPages() {
  drawing += 1;
  const mine = drawing;
  const list = clear($("#pb-page-list"));
  const tabs = clear($(".pb-tabs"));
  const doc = state.docs.find((d) => d.id === state.shown);
  for (const each of state.docs) {
    tabs.append(
      h(
        "button",
        {
          type: "button",
          class: "pb-btn",
          "aria-pressed": String(each === doc),
          onclick: () => {
            state.shown = each.id;
            renderPages();
          },
        },
        each.title,
      ),
    );
  }
  if (!doc) return;
  const width = Math.max(240, list.clientWidth - 8);
  drawnWidth = list.clientWidth;
  doc.views = [];
  for (let index = 0; index < doc.pdf.numPages; index += 1) {
    const page = await doc.pdf.getPage(index + 1);
    if (mine !== drawing) return;
    const base = page.getViewport({ scale: 1 });
    const scale = Math.min(MAX_SCALE, width / base.width);
    const viewport = page.getViewport({ scale });
    const view = { viewport, scale, view: page.view };
    doc.views.push(view);
    const canvas = h("canvas", { width: Math.floor(viewport.width), height: Math.floor(viewport.height) });
    const holder = h("div", {
      class: "pb-page",
      dataset: { page: String(index) },
      style: { width: `${viewport.width}px`, height: `${viewport.height}px` },
    });
    holder.append(canvas);
    holder.addEventListener("click", (event) => {
      const bounds = holder.getBoundingClientRect();
      place(doc, index, view, event.clientX - bounds.left, event.clientY - bounds.top);
    });
    // For the keyboard (and a screen reader): a field in the middle of the page, then arrows.
    const middle = h("button", {
      type: "button",
      class: "pb-btn pb-place",
      dataset: { page: String(index) },
      onclick: () => place(doc, index, view, viewport.width / 2, viewport.height / 2),
    });
    list.append(middle);
    list.append(holder);
    await page.render({ canvasContext: canvas.getContext("2d"), viewport }).promise;
    if (mine !== drawing) return;
  }
  renderOverlays();
  root.dataset.pages = String(doc.pdf.numPages);
}

function renderOverlays() {
  const doc = state.docs.find((d) => d.id === state.shown);
  if (!doc || !doc.views) return;
  const { signer, type } = chosen();
  const who = (field) => state.signers.find((s) => s.id === field.signer);
  const caption = (field) =>
    `${typeLabel(field.type)}${who(field) ? ` · ${signerLabel(who(field))}` : ""}`;
  root.querySelectorAll(".pb-place").forEach((button) => {
    button.textContent = say(S.placeOn, {
      n: Number(button.dataset.page) + 1,
      type: type.label,
      signer: signer ? signerLabel(signer) : "",
    });
  });
  root.querySelectorAll(".pb-page").forEach((holder) => {
    const index = Number(holder.dataset.page);
    holder.querySelectorAll(".pb-field").forEach((node) => node.remove());
    const view = doc.views[index];
    if (!view) return;
    for (const field of state.fields.filter((f) => f.docId === doc.id && f.page === index)) {
      const moved = (rect) => {
        field.rect = rect;
        renderOverlays();
        root.querySelector(`.pb-field[data-field-id="${field.id}"]`)?.focus();
      };
      const label = say(S.moveField, { field: caption(field) });
      holder.append(movableField(field, view, { text: caption(field), label, moved }));
    }
    for (const field of doc.templateFields.filter((f) => f.page === index)) {
      holder.append(templateField(field, view, caption(field)));
    }
  });
}

// --- the side column ---------------------------------------------------------------------------

function renderFieldControls() {
  const select = $("#pb-field-signer");
  const value = select.value;
  clear(select).append(...state.signers.map((s) => h("option", { value: s.id }, signerLabel(s))));
  if (state.signers.some((s) => s.id === value)) select.value = value;
  const { signer, type } = chosen();
  $("#pb-hint").textContent = !state.docs.length
    ? S.noDocument
    : signer
      ? say(S.placeHint, { type: type.label, signer: signerLabel(signer) })
      : S.noSigner;
  renderOverlays();
}

function renderFields() {
  const list = clear($("#pb-fields"));
  for (const doc of state.docs) {
    for (const field of doc.templateFields) list.append(templateFieldRow(doc, field));
  }
  for (const field of state.fields) list.append(fieldRow(field));
}

function render() {
  const docs = clear($("#pb-docs"));
  for (const doc of state.docs) {
    docs.append(
      h(
        "li",
        {},
        h("span", {}, doc.title),
        h(
          "button",
          {
            type: "button",
            class: "pb-btn",
            "aria-label": `${S.remove} ${doc.title}`,
            onclick: () => removeDoc(doc),
          },
          S.remove,
        ),
      ),
    );
  }
  clear($("#pb-signers")).append(...state.signers.map(signerRow));
  renderFieldControls();
  renderFields();
  renderPages();
}

// --- sending -----------------------------------------------------------------------------------

async function send() {
  const button = $("#pb-send");
  button.disabled = true;
  message(S.sending);
  let response, body;
  try {
    response = await fetch(config.urls.send, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(packetRequest(state, $("#pb-name").value)),
    });
    body = await response.json();
  } catch (error) {
    response = { ok: false, status: 0 };
    body = { name: "NetworkError", message: error.message };
  }
  if (response.ok) {
    // Made once: the button stays off, so that a second tap makes no second packet.
    message(config.send ? S.sent : S.saved);
    root.dataset.state = "sent";
    post(config.send ? "etchPacketSent" : "etchPacketSaved", body);
    return;
  }
  button.disabled = false;
  const problems = (body.fields || []).map((f) => `${f.property}: ${f.message}`);
  const marked = markProblems(root, state, body.fields);
  const why = body.message || problems.join("; ");
  message(`${S.refused} ${marked ? `${S.checkMarked} (${why})` : why}`, true);
  post("etchPacketError", {
    errorType: body.name || "Error",
    error: body.message || problems.join("; "),
    status: response.status,
    fields: body.fields || [],
  });
}

// --- start -------------------------------------------------------------------------------------

function wire() {
  const addTemplateButton = $("#pb-add-template");
  if (addTemplateButton) {
    addTemplateButton.addEventListener("click", () =>
      addTemplate($("#pb-template").value).catch((error) => message(error.message, true)),
    );
  }
  $("#pb-upload").addEventListener("change", (event) => {
    const [file] = event.target.files;
    event.target.value = "";
    if (file) addUpload(file).catch((error) => message(error.message, true));
  });
  $("#pb-add-signer").addEventListener("click", addSigner);
  $("#pb-field-signer").addEventListener("change", renderFieldControls);
  $("#pb-field-type").addEventListener("change", renderFieldControls);
  $("#pb-send").addEventListener("click", send);
  window.addEventListener("resize", () => {
    if (Math.abs($("#pb-page-list").clientWidth - drawnWidth) > 24) renderPages();
  });
}

wire();
addSigner();
root.dataset.state = "ready";
