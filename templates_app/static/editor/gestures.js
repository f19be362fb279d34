// The mouse (and pen, and touch) on the pages: click to select, Shift+click to add, drag to
// move, drag a handle to resize, draw a field or a radio option with the draw tools, drag on the
// empty page to select what the rectangle touches. A move or a resize is one undo step.

import { h } from "#common/dom.js";
import { boxToRect, pointToPdf, rectToBox, screenDeltaToPdf } from "#common/page-box.js";
import { categoryOf, defaultSize, getSubRect } from "./fields.js";
import { boxStyle, boxesIntersect, normalizeBox, unionBox } from "./geometry.js";
import { moveFieldOrSub, resizeFieldOrSub } from "./state.js";

const DRAG_THRESHOLD = 3; // px: less than this is a click, not a drag
const MIN_BOX = 4; // px: a smaller drawn box counts as a click

export function onPointerDown(view, event, p) {
  if (event.button !== 0) return;
  event.preventDefault();
  // Keep receiving the pointer's moves even when it leaves the page (or the window).
  p.overlay.setPointerCapture(event.pointerId);
  if (document.activeElement && document.activeElement !== document.body)
    document.activeElement.blur();
  const { state } = view;
  const point = localPoint(event, p);
  const handle = event.target.closest(".ed-handle");
  const subEl = event.target.closest(".ed-sub");
  const fieldEl = event.target.closest(".ed-field");
  if (view.tool === "draw" || view.tool === "option") {
    startDraw(view, p, point);
    return;
  }
  if (handle) {
    startResize(view, p, point, handle.dataset.handle);
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
      startMove(view, p, point, { id });
      return;
    }
    const wasSelected = state.selection.has(id) && !state.sub;
    if (!wasSelected) state.select([id]);
    startMove(view, p, point, { id, collapseOnClick: wasSelected && state.selection.size > 1 });
    return;
  }
  startMarquee(view, p, point, event.shiftKey || event.metaKey || event.ctrlKey);
}

export function onHover(view, event, p) {
  const point = localPoint(event, p);
  const pdfPoint = pointToPdf(p.viewport, point.x, point.y);
  view.dispatchEvent(new CustomEvent("pointer", { detail: { page: p.index, ...pdfPoint } }));
}

export function onDoubleClick(view, event) {
  // The overlay captured the pointer, so the event's target is the overlay: look underneath.
  const fieldEl = document
    .elementsFromPoint(event.clientX, event.clientY)
    .find((el) => el.classList.contains("ed-field"));
  if (fieldEl)
    view.dispatchEvent(new CustomEvent("focusproperties", { detail: fieldEl.dataset.fieldId }));
}

function localPoint(event, p) {
  const bounds = p.overlay.getBoundingClientRect();
  return { x: event.clientX - bounds.left, y: event.clientY - bounds.top };
}

// A drag that edits the document: it starts (state.beginGesture: one undo step) once the pointer
// has moved ``threshold`` px from ``start``; then ``move`` gets the distance moved on screen and
// the page is redrawn. ``end`` is told whether it started.
function trackEdit(p, state, start, threshold, move, end = () => {}) {
  let started = false;
  track(p, {
    move: (point) => {
      const dx = point.x - start.x;
      const dy = point.y - start.y;
      if (!started) {
        if (Math.hypot(dx, dy) < threshold) return;
        started = true;
        state.beginGesture();
      }
      move(dx, dy);
      state.touch();
    },
    end: () => end(started),
  });
}

function track(p, { move, end }) {
  const onMove = (event) => move(localPoint(event, p), event);
  const onUp = (event) => {
    window.removeEventListener("pointermove", onMove);
    window.removeEventListener("pointerup", onUp);
    end(localPoint(event, p), event);
  };
  window.addEventListener("pointermove", onMove);
  window.addEventListener("pointerup", onUp);
}

// Drag the selected fields of this page (or the selected box/option/part).
function startMove(view, p, start, { id, collapseOnClick = false }) {
  const { state } = view;
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
  trackEdit(
    p,
    state,
    start,
    DRAG_THRESHOLD,
    (movedX, movedY) => {
      const dx = Math.min(limits.maxX, Math.max(limits.minX, movedX));
      const dy = Math.min(limits.maxY, Math.max(limits.minY, movedY));
      const delta = screenDeltaToPdf(p.viewport, dx, dy);
      for (const each of ids) {
        const copy = structuredClone(originals.get(each));
        moveFieldOrSub(copy, sub, delta.dx, delta.dy);
        Object.assign(state.field(each), copy);
      }
    },
    (started) => {
      if (!started && collapseOnClick) state.select([id]);
    },
  );
}

// Drag a handle of the selected field (or of its selected box/option/part).
function startResize(view, p, start, handle) {
  const { state } = view;
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
  trackEdit(p, state, start, 1, (dx, dy) => {
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
    resizeFieldOrSub(copy, sub, rect);
    Object.assign(field, copy);
  });
}

// Draw a new field (draw tool) or a new radio option (option tool).
function startDraw(view, p, start) {
  const draft = h("div", {
    class: `ed-draft cat-${categoryOf(view.tool === "option" ? "radioGroup" : view.newType)}`,
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
    Object.assign(draft.style, boxStyle(box));
    return box;
  };
  place(start);
  track(p, {
    move: (point) => place(point),
    end: (point) => {
      draft.remove();
      let box = place(point);
      if (box.width < MIN_BOX && box.height < MIN_BOX) {
        // A click: a field of the type's usual size with its top-left corner there.
        const [w, hgt] = view.tool === "option" ? [12, 12] : defaultSize(view.newType);
        box = {
          left: clamp(origin.x, 0, p.viewport.width - w * view.zoom),
          top: clamp(origin.y, 0, p.viewport.height - hgt * view.zoom),
          width: w * view.zoom,
          height: hgt * view.zoom,
        };
      } else {
        box.width = Math.max(box.width, MIN_BOX);
        box.height = Math.max(box.height, MIN_BOX);
      }
      const rect = boxToRect(p.viewport, box);
      if (view.tool === "option") {
        const [id] = view.state.selection;
        const field = view.state.field(id);
        if (field && field.type === "radioGroup" && (field.page || 0) === p.index) {
          view.state.addOption(id, rect);
        } else {
          view.dispatchEvent(
            new CustomEvent("message", {
              detail: "Draw options on the page of their radio group.",
            }),
          );
        }
        return;
      }
      view.state.addField(view.newType, p.index, rect);
      view.setTool("select");
    },
  });
}

// Drag a rectangle on the empty page to select every field it touches.
function startMarquee(view, p, start, add) {
  const { state } = view;
  const before = add ? new Set(state.selection) : new Set();
  const marquee = h("div", { class: "ed-marquee" });
  let started = false;
  track(p, {
    move: (point) => {
      if (!started) {
        if (Math.hypot(point.x - start.x, point.y - start.y) < DRAG_THRESHOLD) return;
        started = true;
        p.overlay.append(marquee);
      }
      const box = normalizeBox(start.x, start.y, point.x, point.y);
      Object.assign(marquee.style, boxStyle(box));
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

function clamp(value, low, high) {
  return Math.min(high, Math.max(low, value));
}
