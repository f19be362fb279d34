// A page's box: where a rectangle of a PDF page is on the page as it is shown, and back. The
// template editor places fields on pages that pdf.js draws; the signing page places the signer's
// fields on pictures of the pages drawn by the server; both go through this module, so a field
// lands where it was placed.
//
// Rectangles in two spaces.
//
// A *rect* is {x, y, width, height} in PDF points, in the page's default user space: the space
// of core/engine/template_spec.py (origin of the page coordinate system, usually the lower-left
// corner of the MediaBox, y up, before /Rotate).
//
// A *box* is {left, top, width, height} in CSS pixels on the rendered page, y down, after
// /Rotate. A page's viewport converts between the two (pdf.js' PageViewport in the editor; the
// signing page builds the same from the page's view box and /Rotate), which takes care of
// /Rotate, CropBox and MediaBox origins that are not (0, 0): never convert by hand.

export function round2(value) {
  return Math.round(value * 100) / 100;
}

export function rectToBox(viewport, rect) {
  const [a, b, c, d] = viewport.convertToViewportRectangle([
    rect.x,
    rect.y,
    rect.x + rect.width,
    rect.y + rect.height,
  ]);
  return {
    left: Math.min(a, c),
    top: Math.min(b, d),
    width: Math.abs(c - a),
    height: Math.abs(d - b),
  };
}

export function boxToRect(viewport, box) {
  const [x0, y0] = viewport.convertToPdfPoint(box.left, box.top);
  const [x1, y1] = viewport.convertToPdfPoint(box.left + box.width, box.top + box.height);
  return {
    x: round2(Math.min(x0, x1)),
    y: round2(Math.min(y0, y1)),
    width: round2(Math.abs(x1 - x0)),
    height: round2(Math.abs(y1 - y0)),
  };
}

// Like boxToRect, but the rect is cut to ``bounds`` ({x0, y0, x1, y1} in points) and keeps at
// least ``minSize`` points per side.
export function boxToRectWithin(viewport, box, bounds, minSize = 2) {
  const [x0, y0] = viewport.convertToPdfPoint(box.left, box.top);
  const [x1, y1] = viewport.convertToPdfPoint(box.left + box.width, box.top + box.height);
  const left = Math.max(bounds.x0, Math.min(x0, x1));
  const bottom = Math.max(bounds.y0, Math.min(y0, y1));
  const right = Math.min(bounds.x1, Math.max(x0, x1));
  const top = Math.min(bounds.y1, Math.max(y0, y1));
  return {
    x: round2(left),
    y: round2(bottom),
    width: round2(Math.max(minSize, right - left)),
    height: round2(Math.max(minSize, top - bottom)),
  };
}

// A movement of (dx, dy) CSS pixels on screen, as a movement in PDF points.
export function screenDeltaToPdf(viewport, dx, dy) {
  const [ox, oy] = viewport.convertToPdfPoint(0, 0);
  const [px, py] = viewport.convertToPdfPoint(dx, dy);
  return { dx: px - ox, dy: py - oy };
}

export function pointToPdf(viewport, left, top) {
  const [x, y] = viewport.convertToPdfPoint(left, top);
  return { x: round2(x), y: round2(y) };
}
