// A pdf.js page drawn onto a canvas, for the editor's pages and the preview's.

import { h } from "#common/dom.js";

// Browsers cap a canvas' size (Safari on iOS at about 16.7 million pixels, and leaves a bigger
// one blank): a big page at a high zoom gets fewer pixels per CSS pixel instead.
const MAX_CANVAS_PIXELS = 16_000_000;

// A new canvas of class ``className`` with ``page`` drawn at ``viewport``, as sharp as the
// screen's pixel density allows; ``task`` is pdf.js' render task (await task.promise, or cancel).
export function drawPage(page, viewport, className) {
  const density = Math.min(
    window.devicePixelRatio || 1,
    Math.sqrt(MAX_CANVAS_PIXELS / (viewport.width * viewport.height)),
  );
  const canvas = h("canvas", { class: className });
  canvas.width = Math.floor(viewport.width * density);
  canvas.height = Math.floor(viewport.height * density);
  const task = page.render({
    canvasContext: canvas.getContext("2d"),
    viewport,
    transform: density === 1 ? null : [density, 0, 0, density, 0, 0],
  });
  return { canvas, task };
}
