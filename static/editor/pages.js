// The pages: each PDF page rendered by pdf.js onto a canvas, with the fields drawn over it in an
// overlay at their true positions, and the mouse work on them (draw, select, move, resize).

import { h } from "../common/dom.js";
import {
  categoryOf,
  defaultSize,
  fitToSubRects,
  getSubRect,
  setSubRect,
  subLabel,
  subRects,
  typeLabel,
} from "./fields.js";
import { boxToRect, pointToPdf, rectToBox, screenDeltaToPdf } from "../common/page-box.js";
import { boxesIntersect, normalizeBox, translateRect, unionBox } from "./geometry.js";
import { moveField, resizeField } from "./state.js";

const HANDLES = ["nw", "n", "ne", "e", "se", "s", "sw", "w"];
const DRAG_THRESHOLD = 3; // px: less than this is a click, not a drag
const MIN_BOX = 4; // px: a smaller drawn box counts as a click
const MAX_CANVAS_PIXELS = 16_000_000;
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
    this.gesture = null;
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
        this.onPointerDown(event, this.pages[index]),
      );
      overlay.addEventListener("pointermove", (event) => this.onHover(event, this.pages[index]));
      overlay.addEventListener("dblclick", (event) => this.onDoubleClick(event));
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
    const density = Math.min(
      window.devicePixelRatio || 1,
      Math.sqrt(MAX_CANVAS_PIXELS / (viewport.width * viewport.height)),
    );
    const canvas = h("canvas", { class: "ed-canvas" });
    canvas.width = Math.floor(viewport.width * density);
    canvas.height = Math.floor(viewport.height * density);
    const task = p.page.render({
      canvasContext: canvas.getContext("2d"),
      viewport,
      transform: density === 1 ? null : [density, 0, 0, density, 0, 0],
    });
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
  renderOverlays(force = false) {
    const { state } = this;
    const single = state.selection.size === 1;
    const errors = new Set(state.problems.map((p) => p.fieldId).filter(Boolean));
    const arrayLabels = new Map();
    for (const array of state.arrays) {
      array.fieldIds.forEach((id, row) =>
        arrayLabels.set(id, `${array.alias || array.id}[${row}]`),
      );
    }
    const seen = new Set();
    for (const field of state.fields) {
      const p = this.pages[field.page || 0];
      if (!p) continue;
      seen.add(field.id);
      const selected = state.selection.has(field.id);
      const flags = {
        selected,
        single: selected && single,
        handles: selected && single && !state.sub,
        sub: selected && single ? state.sub : null,
        error: errors.has(field.id),
        arrayLabel: arrayLabels.get(field.id) || null,
      };
      const signature = JSON.stringify([field, flags, this.zoom]);
      let el = p.fieldEls.get(field.id);
      if (el && el.parentNode !== p.overlay) {
        el.remove();
        el = null;
      }
      if (!el) {
        el = h("div", { class: "ed-field", dataset: { fieldId: field.id } });
        p.fieldEls.set(field.id, el);
        p.overlay.append(el);
      } else if (!force && el.dataset.signature === signature) {
        continue;
      }
      el.dataset.signature = signature;
      this.drawField(el, p, field, flags);
    }
    for (const p of this.pages) {
      for (const [id, el] of p.fieldEls) {
        const field = state.field(id);
        if (!seen.has(id) || (field.page || 0) !== p.index) {
          el.remove();
          p.fieldEls.delete(id);
        }
      }
    }
  }

  drawField(el, p, field, flags) {
    const box = rectToBox(p.viewport, field.rect);
    el.className = [
      "ed-field",
      `cat-${categoryOf(field.type)}`,
      flags.selected && "is-selected",
      flags.error && "is-error",
      flags.arrayLabel && "in-array",
      box.height < 15 && "is-small",
    ]
      .filter(Boolean)
      .join(" ");
    Object.assign(el.style, {
      left: `${box.left}px`,
      top: `${box.top}px`,
      width: `${box.width}px`,
      height: `${box.height}px`,
    });
    const name = flags.arrayLabel || field.alias || field.id;
    el.title = `${name} · ${typeLabel(field.type)}`;
    el.replaceChildren();
    const subs = subRects(field);
    if ((!subs.length || field.type === "textWrap") && box.width >= 28) {
      el.append(h("span", { class: "ed-field-name" }, name));
    }
    for (const [kind, key, rect] of subs) {
      const sub = rectToBox(p.viewport, rect);
      const isSelected =
        flags.sub && flags.sub.kind === kind && String(flags.sub.key) === String(key);
      const subEl = h(
        "div",
        {
          class: `ed-sub ed-sub-${kind}${isSelected ? " is-selected" : ""}`,
          dataset: { kind, key },
          style: {
            left: `${sub.left - box.left}px`,
            top: `${sub.top - box.top}px`,
            width: `${sub.width}px`,
            height: `${sub.height}px`,
          },
        },
        flags.selected && h("span", { class: "ed-sub-name" }, subLabel(field, kind, key)),
      );
      if (isSelected) subEl.append(...handlesFor(sub));
      el.append(subEl);
    }
    if (flags.single) {
      el.append(h("div", { class: "ed-field-flag" }, h("b", {}, name), " ", typeLabel(field.type)));
    }
    if (flags.handles) el.append(...handlesFor(box));
  }

  // --- the mouse ------------------------------------------------------------------------------
  localPoint(event, p) {
    const bounds = p.overlay.getBoundingClientRect();
    return { x: event.clientX - bounds.left, y: event.clientY - bounds.top };
  }

  setTool(tool) {
    this.tool = tool;
    this.scroller.dataset.tool = tool;
    this.dispatchEvent(new CustomEvent("tool", { detail: tool }));
  }

  onHover(event, p) {
    const point = this.localPoint(event, p);
    const pdfPoint = pointToPdf(p.viewport, point.x, point.y);
    this.dispatchEvent(new CustomEvent("pointer", { detail: { page: p.index, ...pdfPoint } }));
  }

  onDoubleClick(event) {
    // The overlay captured the pointer, so the event's target is the overlay: look underneath.
    const fieldEl = document
      .elementsFromPoint(event.clientX, event.clientY)
      .find((el) => el.classList.contains("ed-field"));
    if (fieldEl)
      this.dispatchEvent(new CustomEvent("focusproperties", { detail: fieldEl.dataset.fieldId }));
  }

  onPointerDown(event, p) {
    if (event.button !== 0) return;
    event.preventDefault();
    // Keep receiving the pointer's moves even when it leaves the page (or the window).
    p.overlay.setPointerCapture(event.pointerId);
    if (document.activeElement && document.activeElement !== document.body)
      document.activeElement.blur();
    const { state } = this;
    const point = this.localPoint(event, p);
    const handle = event.target.closest(".ed-handle");
    const subEl = event.target.closest(".ed-sub");
    const fieldEl = event.target.closest(".ed-field");
    if (this.tool === "draw" || this.tool === "option") {
      this.startDraw(p, point);
      return;
    }
    if (handle) {
      this.startResize(p, point, handle.dataset.handle);
      return;
    }
    if (fieldEl) {
      const id = fieldEl.dataset.fieldId;
      if (event.shiftKey || event.metaKey || event.ctrlKey) {
        state.toggle(id);
        return;
      }
      if (subEl && state.selection.size === 1 && state.selection.has(id)) {
        const key = subEl.dataset.kind === "parts" ? subEl.dataset.key : Number(subEl.dataset.key);
        state.selectSub(id, subEl.dataset.kind, key);
        this.startMove(p, point, { id });
        return;
      }
      const wasSelected = state.selection.has(id) && !state.sub;
      if (!wasSelected) state.select([id]);
      this.startMove(p, point, { id, collapseOnClick: wasSelected && state.selection.size > 1 });
      return;
    }
    this.startMarquee(p, point, event.shiftKey || event.metaKey || event.ctrlKey);
  }

  track(p, { move, end }) {
    const onMove = (event) => move(this.localPoint(event, p), event);
    const onUp = (event) => {
      window.removeEventListener("pointermove", onMove);
      window.removeEventListener("pointerup", onUp);
      this.gesture = null;
      end(this.localPoint(event, p), event);
    };
    window.addEventListener("pointermove", onMove);
    window.addEventListener("pointerup", onUp);
    this.gesture = { p };
  }

  // Drag the selected fields of this page (or the selected box/option/part).
  startMove(p, start, { id, collapseOnClick = false }) {
    const { state } = this;
    const sub = state.sub;
    const ids = [...state.selection].filter((each) => (state.field(each)?.page || 0) === p.index);
    const originals = new Map(ids.map((each) => [each, structuredClone(state.field(each))]));
    const boxes = sub
      ? [rectToBox(p.viewport, getSubRect(originals.get(id), sub.kind, sub.key))]
      : ids.map((each) => rectToBox(p.viewport, originals.get(each).rect));
    const around = unionBox(boxes);
    // May not leave the page, unless it already hung over the edge.
    const limits = {
      minX: Math.min(0, -around.left),
      maxX: Math.max(0, p.viewport.width - around.left - around.width),
      minY: Math.min(0, -around.top),
      maxY: Math.max(0, p.viewport.height - around.top - around.height),
    };
    let started = false;
    this.track(p, {
      move: (point) => {
        let dx = point.x - start.x;
        let dy = point.y - start.y;
        if (!started) {
          if (Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
          started = true;
          state.beginGesture();
        }
        dx = Math.min(limits.maxX, Math.max(limits.minX, dx));
        dy = Math.min(limits.maxY, Math.max(limits.minY, dy));
        const delta = screenDeltaToPdf(p.viewport, dx, dy);
        for (const each of ids) {
          const copy = structuredClone(originals.get(each));
          if (sub) {
            setSubRect(
              copy,
              sub.kind,
              sub.key,
              translateRect(getSubRect(copy, sub.kind, sub.key), delta.dx, delta.dy),
            );
            fitToSubRects(copy);
          } else {
            moveField(copy, delta.dx, delta.dy);
          }
          Object.assign(state.field(each), copy);
        }
        state.touch();
      },
      end: () => {
        if (!started && collapseOnClick) state.select([id]);
      },
    });
  }

  // Drag a handle of the selected field (or of its selected box/option/part).
  startResize(p, start, handle) {
    const { state } = this;
    const field = state.selectedFields()[0];
    const sub = state.sub;
    const original = structuredClone(field);
    const from = rectToBox(
      p.viewport,
      sub ? getSubRect(original, sub.kind, sub.key) : original.rect,
    );
    const xMin = Math.min(0, from.left);
    const xMax = Math.max(p.viewport.width, from.left + from.width);
    const yMin = Math.min(0, from.top);
    const yMax = Math.max(p.viewport.height, from.top + from.height);
    let started = false;
    this.track(p, {
      move: (point) => {
        const dx = point.x - start.x;
        const dy = point.y - start.y;
        if (!started) {
          if (Math.hypot(dx, dy) < 1) return;
          started = true;
          state.beginGesture();
        }
        let x0 = from.left;
        let y0 = from.top;
        let x1 = from.left + from.width;
        let y1 = from.top + from.height;
        if (handle.includes("w")) x0 = clamp(x0 + dx, xMin, x1 - MIN_BOX);
        if (handle.includes("e")) x1 = clamp(x1 + dx, x0 + MIN_BOX, xMax);
        if (handle.includes("n")) y0 = clamp(y0 + dy, yMin, y1 - MIN_BOX);
        if (handle.includes("s")) y1 = clamp(y1 + dy, y0 + MIN_BOX, yMax);
        const rect = boxToRect(p.viewport, normalizeBox(x0, y0, x1, y1));
        const copy = structuredClone(original);
        if (sub) {
          setSubRect(copy, sub.kind, sub.key, rect);
          fitToSubRects(copy);
        } else {
          resizeField(copy, rect);
        }
        Object.assign(field, copy);
        state.touch();
      },
      end: () => {},
    });
  }

  // Draw a new field (draw tool) or a new radio option (option tool).
  startDraw(p, start) {
    const draft = h("div", {
      class: `ed-draft cat-${categoryOf(this.tool === "option" ? "radioGroup" : this.newType)}`,
    });
    p.overlay.append(draft);
    const within = (point) => ({
      x: clamp(point.x, 0, p.viewport.width),
      y: clamp(point.y, 0, p.viewport.height),
    });
    const origin = within(start);
    const place = (point) => {
      const at = within(point);
      const box = normalizeBox(origin.x, origin.y, at.x, at.y);
      Object.assign(draft.style, {
        left: `${box.left}px`,
        top: `${box.top}px`,
        width: `${box.width}px`,
        height: `${box.height}px`,
      });
      return box;
    };
    place(start);
    this.track(p, {
      move: (point) => place(point),
      end: (point) => {
        draft.remove();
        let box = place(point);
        if (box.width < MIN_BOX && box.height < MIN_BOX) {
          // A click: a field of the type's usual size with its top-left corner there.
          const [w, hgt] = this.tool === "option" ? [12, 12] : defaultSize(this.newType);
          box = {
            left: clamp(origin.x, 0, p.viewport.width - w * this.zoom),
            top: clamp(origin.y, 0, p.viewport.height - hgt * this.zoom),
            width: w * this.zoom,
            height: hgt * this.zoom,
          };
        } else {
          box.width = Math.max(box.width, MIN_BOX);
          box.height = Math.max(box.height, MIN_BOX);
        }
        const rect = boxToRect(p.viewport, box);
        if (this.tool === "option") {
          const [id] = this.state.selection;
          const field = this.state.field(id);
          if (field && field.type === "radioGroup" && (field.page || 0) === p.index) {
            this.state.addOption(id, rect);
          } else {
            this.dispatchEvent(
              new CustomEvent("message", {
                detail: "Draw options on the page of their radio group.",
              }),
            );
          }
          return;
        }
        this.state.addField(this.newType, p.index, rect);
        this.setTool("select");
      },
    });
  }

  // Drag a rectangle on the empty page to select every field it touches.
  startMarquee(p, start, add) {
    const { state } = this;
    const before = add ? new Set(state.selection) : new Set();
    const marquee = h("div", { class: "ed-marquee" });
    let started = false;
    this.track(p, {
      move: (point) => {
        if (!started) {
          if (Math.hypot(point.x - start.x, point.y - start.y) < DRAG_THRESHOLD) return;
          started = true;
          p.overlay.append(marquee);
        }
        const box = normalizeBox(start.x, start.y, point.x, point.y);
        Object.assign(marquee.style, {
          left: `${box.left}px`,
          top: `${box.top}px`,
          width: `${box.width}px`,
          height: `${box.height}px`,
        });
        const hit = state
          .fieldsOnPage(p.index)
          .filter((f) => boxesIntersect(rectToBox(p.viewport, f.rect), box))
          .map((f) => f.id);
        state.select([...before, ...hit]);
      },
      end: () => {
        marquee.remove();
        if (!started && !add) state.clearSelection();
      },
    });
  }
}

// Resize handles for a box on screen: corners always, edge middles only where there is room.
function handlesFor(box) {
  return HANDLES.filter((handle) => {
    if (handle === "n" || handle === "s") return box.width >= 30;
    if (handle === "e" || handle === "w") return box.height >= 30;
    return true;
  }).map((handle) => h("div", { class: "ed-handle", dataset: { handle } }));
}

function clamp(value, low, high) {
  return Math.min(high, Math.max(low, value));
}
