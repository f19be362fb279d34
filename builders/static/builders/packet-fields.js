// A field placed in the packet builder (packet.js), over its page: a button that a finger, a
// mouse or the arrow keys move (1 pt, 10 pt with Shift), its box kept on the page and its rect
// in PDF points through #common/page-box.js, as the template editor places its fields.

import { h } from "#common/dom.js";
import { boxToRectWithin, rectToBox } from "#common/page-box.js";

const STEP = 1;
const BIG_STEP = 10;

function show(node, box) {
  Object.assign(node.style, {
    left: `${box.left}px`,
    top: `${box.top}px`,
    width: `${box.width}px`,
    height: `${box.height}px`,
  });
}

// The box moved by (dx, dy) CSS pixels, kept whole on the page.
function shifted(view, box, dx, dy) {
  const { width, height } = view.viewport;
  return {
    ...box,
    left: Math.min(Math.max(0, box.left + dx), Math.max(0, width - box.width)),
    top: Math.min(Math.max(0, box.top + dy), Math.max(0, height - box.height)),
  };
}

// A template's own field, where the template has it: shown, not moved (nor read out: the
// list beside the pages names it).
export function templateField(field, view, text) {
  const node = h(
    "div",
    { class: "pb-field is-template", "aria-hidden": "true", dataset: { type: field.type } },
    text,
  );
  show(node, rectToBox(view.viewport, field.rect));
  return node;
}

// ``moved(rect)`` once a move ends; ``text`` is shown in the box, ``label`` read out.
export function movableField(field, view, { text, label, moved }) {
  const [x0, y0, x1, y1] = view.view;
  const bounds = { x0, y0, x1, y1 };
  const node = h(
    "button",
    {
      type: "button",
      class: "pb-field is-movable",
      "aria-label": label,
      dataset: { type: field.type, fieldId: field.id },
    },
    text,
  );
  const start = rectToBox(view.viewport, field.rect);
  show(node, start);
  const finish = (box) => moved(boxToRectWithin(view.viewport, box, bounds));

  let drag = null;
  const dragged = (event) =>
    shifted(view, drag.box, event.clientX - drag.x, event.clientY - drag.y);
  node.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    node.focus();
    node.setPointerCapture(event.pointerId);
    drag = { x: event.clientX, y: event.clientY, box: start };
  });
  node.addEventListener("pointermove", (event) => {
    if (drag) show(node, dragged(event));
  });
  node.addEventListener("pointerup", (event) => {
    if (!drag) return;
    const box = dragged(event);
    const still = box.left === drag.box.left && box.top === drag.box.top;
    drag = null;
    if (!still) finish(box);
  });
  node.addEventListener("pointercancel", () => {
    drag = null;
    show(node, start);
  });
  // A tap on a field is not a tap on its page (which places a new one).
  node.addEventListener("click", (event) => event.stopPropagation());
  node.addEventListener("keydown", (event) => {
    const step = (event.shiftKey ? BIG_STEP : STEP) * view.scale;
    const by = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    }[event.key];
    if (!by) return;
    event.preventDefault();
    finish(shifted(view, start, ...by));
  });
  return node;
}
