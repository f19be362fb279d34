// The documents: every page of every document rendered by pdf.js, as wide as the column, with
// an overlay on each page where the signer's fields are placed.
//
// Fields are placed as the template editor places them (static/editor/geometry.js): the rect in
// PDF points of the page's unrotated user space goes through the pdf.js viewport, which knows
// /Rotate and MediaBox origins. The box is then kept in percentages of the page, so the page can
// take any width (phone or desktop) without placing anything again; only the canvas is drawn
// again, sharper, when the width changes.

import { h } from "../editor/dom.js";
import { rectToBox } from "../editor/geometry.js";

const MAX_CANVAS_PIXELS = 12_000_000;

export async function loadPdfjs({ module, worker }) {
  const pdfjs = await import(module);
  pdfjs.GlobalWorkerOptions.workerSrc = worker;
  return pdfjs;
}

export class DocumentsView {
  constructor(container, { pdfjs, token, scroller }) {
    this.container = container;
    this.scroller = scroller;
    this.pdfjs = pdfjs;
    this.token = token;
    this.pages = new Map(); // "fileId/pageIndex" -> page
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), {
      root: scroller,
      rootMargin: "600px 0px",
    });
    let lastWidth = 0;
    new ResizeObserver(() => {
      const width = this.container.clientWidth;
      if (Math.abs(width - lastWidth) < 1) return;
      lastWidth = width;
      clearTimeout(this.resizeTimer);
      this.resizeTimer = setTimeout(() => this.renderVisible(), 120);
    }).observe(container);
  }

  // Fetch and open every document (in order), and lay out their pages.
  async open(documents) {
    const loaded = await Promise.all(documents.map((doc) => this.fetchDocument(doc)));
    for (const [index, { doc, pdf }] of loaded.entries()) {
      const section = h(
        "section",
        { class: "sg-document", "aria-labelledby": `sg-doc-${index}` },
        h(
          "h2",
          { class: "sg-document-title", id: `sg-doc-${index}` },
          doc.title,
          h("span", { class: "sg-document-pages" }, pageCount(pdf.numPages)),
        ),
      );
      this.container.append(section);
      for (let number = 1; number <= pdf.numPages; number += 1) {
        const page = await pdf.getPage(number);
        const base = page.getViewport({ scale: 1 });
        const canvas = h("canvas", { class: "sg-canvas", "aria-hidden": "true" });
        const overlay = h("div", { class: "sg-overlay" });
        const el = h(
          "div",
          {
            class: "sg-page",
            role: "group",
            "aria-label": `${doc.title}, page ${number} of ${pdf.numPages}`,
            dataset: { file: doc.id, page: number - 1 },
            style: { aspectRatio: `${base.width} / ${base.height}` },
          },
          canvas,
          overlay,
        );
        section.append(el);
        const entry = { doc, page, base, el, canvas, overlay, visible: false, rendered: 0 };
        this.pages.set(`${doc.id}/${number - 1}`, entry);
        this.observer.observe(el);
      }
    }
  }

  async fetchDocument(doc) {
    const response = await fetch(doc.url, {
      headers: { "X-Signing-Token": this.token },
      credentials: "omit",
      cache: "no-store",
    });
    if (!response.ok) {
      const error = new Error(`The document “${doc.title}” could not be loaded.`);
      error.status = response.status;
      throw error;
    }
    const data = new Uint8Array(await response.arrayBuffer());
    const pdf = await this.pdfjs.getDocument({ data, isEvalSupported: false }).promise;
    return { doc, pdf };
  }

  // Put ``el`` over the field's place on its page; false when the page does not exist.
  place(field, el) {
    const entry = this.pages.get(`${field.fileId}/${field.page}`);
    if (!entry) return false;
    const box = rectToBox(entry.base, field.rect);
    const pct = (value, total) => `${(value / total) * 100}%`;
    Object.assign(el.style, {
      left: pct(box.left, entry.base.width),
      top: pct(box.top, entry.base.height),
      width: pct(box.width, entry.base.width),
      height: pct(box.height, entry.base.height),
    });
    entry.overlay.append(el);
    return true;
  }

  onIntersect(entries) {
    for (const item of entries) {
      const entry = this.pages.get(`${item.target.dataset.file}/${item.target.dataset.page}`);
      if (entry) entry.visible = item.isIntersecting;
    }
    this.renderVisible();
  }

  renderVisible() {
    for (const entry of this.pages.values()) if (entry.visible) this.render(entry);
  }

  async render(entry) {
    const cssWidth = entry.el.clientWidth;
    if (!cssWidth) return;
    // As many canvas pixels as screen pixels, within a budget per page.
    const widest = Math.sqrt((MAX_CANVAS_PIXELS * entry.base.width) / entry.base.height);
    const target = Math.round(Math.min(cssWidth * (window.devicePixelRatio || 1), widest));
    if (entry.rendered === target || entry.rendering === target) return;
    if (entry.task) entry.task.cancel();
    const viewport = entry.page.getViewport({ scale: target / entry.base.width });
    const canvas = h("canvas", { class: "sg-canvas", "aria-hidden": "true" });
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    const task = entry.page.render({ canvasContext: canvas.getContext("2d"), viewport });
    entry.task = task;
    entry.rendering = target;
    try {
      await task.promise;
    } catch (error) {
      if (error && error.name === "RenderingCancelledException") return;
      throw error;
    } finally {
      if (entry.task === task) {
        entry.task = null;
        entry.rendering = 0;
      }
    }
    // Swapped only when done: while the width changes the old picture shows, stretched.
    entry.canvas.replaceWith(canvas);
    entry.canvas = canvas;
    entry.rendered = target;
    entry.el.classList.add("is-rendered");
  }
}

function pageCount(count) {
  return count === 1 ? "1 page" : `${count} pages`;
}
