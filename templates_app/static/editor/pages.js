// The pages: each PDF page drawn by pdf.js onto a canvas when it comes near the view, zoom and
// scrolling, and an overlay per page where the fields are drawn (overlays.js) and the mouse works
// on them (gestures.js).

import { h } from "#common/dom.js";
import { rectToBox } from "#common/page-box.js";
import { onDoubleClick, onHover, onPointerDown } from "./gestures.js";
import { drawOverlays } from "./overlays.js";
import { drawPage } from "./page-canvas.js";

export const MIN_ZOOM = 0.25;
export const MAX_ZOOM = 4;

export class PagesView extends EventTarget {
  constructor({ scroller, state, pdf }) {
    super();
    this.scroller = scroller;
    this.inner = scroller.querySelector(".ed-pages-inner");
    this.state = state;
    this.pdf = pdf;
    this.pages = [];
    this.zoom = 1;
    this.tool = "select"; // select | draw | option
    this.newType = "shortText";
    this.currentPage = 0;
  }

  // Open every page (sizes only; canvases render when they scroll into view).
  async open() {
    for (let index = 0; index < this.pdf.numPages; index += 1) {
      const page = await this.pdf.getPage(index + 1);
      const canvas = h("canvas", { class: "ed-canvas" });
      const overlay = h("div", { class: "ed-overlay", dataset: { page: index } });
      const el = h(
        "section",
        { class: "ed-page", dataset: { page: index }, "aria-label": `Page ${index + 1}` },
        h("div", { class: "ed-page-number" }, `Page ${index + 1}`),
        canvas,
        overlay,
      );
      overlay.addEventListener("pointerdown", (event) =>
        onPointerDown(this, event, this.pages[index]),
      );
      overlay.addEventListener("pointermove", (event) => onHover(this, event, this.pages[index]));
      overlay.addEventListener("dblclick", (event) => onDoubleClick(this, event));
      this.inner.append(el);
      this.pages.push({
        index,
        page,
        base: page.getViewport({ scale: 1 }),
        viewport: null,
        el,
        canvas,
        overlay,
        fieldEls: new Map(),
        renderedZoom: null,
        task: null,
        visible: false,
      });
    }
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), {
      root: this.scroller,
      rootMargin: "400px 0px",
    });
    for (const p of this.pages) this.observer.observe(p.el);
    this.scroller.addEventListener("scroll", () => this.onScroll(), { passive: true });
    this.scroller.addEventListener("wheel", (event) => this.onWheel(event), { passive: false });
    this.applyZoom(this.zoom);
  }

  baseViewports() {
    return this.pages.map((p) => p.base);
  }

  // --- zoom and scrolling -------------------------------------------------------------------
  fitWidthZoom() {
    const widest = Math.max(...this.pages.map((p) => p.base.width));
    return (this.scroller.clientWidth - 64) / widest;
  }

  setZoom(zoom, anchor = null) {
    zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, Math.round(zoom * 100) / 100));
    if (zoom === this.zoom) return;
    const sc = this.scroller;
    const at = anchor || { x: sc.clientWidth / 2, y: sc.clientHeight / 2 };
    const ratio = zoom / this.zoom;
    const contentX = sc.scrollLeft + at.x;
    const contentY = sc.scrollTop + at.y;
    this.applyZoom(zoom);
    sc.scrollLeft = contentX * ratio - at.x;
    sc.scrollTop = contentY * ratio - at.y;
  }

  applyZoom(zoom) {
    this.zoom = zoom;
    for (const p of this.pages) {
      p.viewport = p.page.getViewport({ scale: zoom });
      p.el.style.width = `${p.viewport.width}px`;
      p.el.style.height = `${p.viewport.height}px`;
    }
    this.renderOverlays(true);
    this.renderVisible();
    this.dispatchEvent(new CustomEvent("zoom", { detail: zoom }));
  }

  scrollToPage(index) {
    const p = this.pages[Math.max(0, Math.min(this.pages.length - 1, index))];
    this.scroller.scrollTo({ top: p.el.offsetTop - 24, behavior: "auto" });
  }

  // Bring a field into view if it is not (centred), without moving when it already shows.
  revealField(id) {
    const field = this.state.field(id);
    if (!field) return;
    const p = this.pages[field.page || 0];
    const box = rectToBox(p.viewport, field.rect);
    const sc = this.scroller;
    const top = p.el.offsetTop + box.top;
    const left = p.el.offsetLeft + box.left;
    const inView =
      top >= sc.scrollTop &&
      top + box.height <= sc.scrollTop + sc.clientHeight &&
      left >= sc.scrollLeft &&
      left + box.width <= sc.scrollLeft + sc.clientWidth;
    if (!inView) {
      sc.scrollTo({
        top: top - sc.clientHeight / 2 + box.height / 2,
        left: left - sc.clientWidth / 2 + box.width / 2,
      });
    }
  }

  onScroll() {
    if (this.scrollFrame) return;
    this.scrollFrame = requestAnimationFrame(() => {
      this.scrollFrame = null;
      const middle = this.scroller.scrollTop + this.scroller.clientHeight / 3;
      let current = 0;
      for (const p of this.pages) if (p.el.offsetTop <= middle) current = p.index;
      if (current !== this.currentPage) {
        this.currentPage = current;
        this.dispatchEvent(new CustomEvent("page", { detail: current }));
      }
    });
  }

  onWheel(event) {
    if (!(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    const bounds = this.scroller.getBoundingClientRect();
    const factor = Math.exp(-event.deltaY / 300);
    this.setZoom(this.zoom * factor, {
      x: event.clientX - bounds.left,
      y: event.clientY - bounds.top,
    });
  }

  // --- rendering the PDF --------------------------------------------------------------------
  onIntersect(entries) {
    for (const entry of entries) {
      const p = this.pages[Number(entry.target.dataset.page)];
      p.visible = entry.isIntersecting;
    }
    this.renderVisible();
  }

  renderVisible() {
    for (const p of this.pages) if (p.visible) this.renderPage(p);
  }

  async renderPage(p) {
    const zoom = this.zoom;
    if (p.renderedZoom === zoom || p.renderingZoom === zoom) return;
    if (p.task) p.task.cancel();
    const viewport = p.page.getViewport({ scale: zoom });
    const { canvas, task } = drawPage(p.page, viewport, "ed-canvas");
    p.task = task;
    p.renderingZoom = zoom;
    try {
      await task.promise;
    } catch (error) {
      if (error && error.name === "RenderingCancelledException") return;
      throw error;
    } finally {
      if (p.task === task) {
        p.task = null;
        p.renderingZoom = null;
      }
    }
    // Swap only when done, so zooming shows the old (stretched) picture instead of a blank.
    p.canvas.replaceWith(canvas);
    p.canvas = canvas;
    p.renderedZoom = zoom;
    p.el.classList.add("is-rendered");
    this.dispatchEvent(new CustomEvent("rendered", { detail: p.index }));
  }

  // --- drawing the fields -------------------------------------------------------------------
  // Draw the fields over the pages (overlays.js): those whose drawing changed, or all (``force``).
  renderOverlays(force = false) {
    drawOverlays(this, force);
  }



  // --- the tool the mouse works with (gestures.js) ---------------------------------------------

  setTool(tool) {
    this.tool = tool;
    this.scroller.dataset.tool = tool;
    this.dispatchEvent(new CustomEvent("tool", { detail: tool }));
  }








}
