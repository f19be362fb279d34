// Rectangles in two spaces.
//
// A *rect* is {x, y, width, height} in PDF points, in the page's default user space: the space
// of core/engine/template_spec.py (origin of the page coordinate system, usually the lower-left
// corner of the MediaBox, y up, before /Rotate).
//
// A *box* is {left, top, width, height} in CSS pixels on the rendered page, y down, after
// /Rotate. pdf.js viewports convert between the two, which takes care of /Rotate, CropBox and
// MediaBox origins that are not (0, 0): never convert by hand.

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

export function translateRect(rect, dx, dy) {
  return {
    x: round2(rect.x + dx),
    y: round2(rect.y + dy),
    width: rect.width,
    height: rect.height,
  };
}

// ``rect`` placed inside ``from`` moved to the same relative place inside ``to``.
export function mapRect(rect, from, to) {
  const sx = from.width ? to.width / from.width : 1;
  const sy = from.height ? to.height / from.height : 1;
  return {
    x: round2(to.x + (rect.x - from.x) * sx),
    y: round2(to.y + (rect.y - from.y) * sy),
    width: round2(rect.width * sx),
    height: round2(rect.height * sy),
  };
}

export function unionRect(rects) {
  const x0 = Math.min(...rects.map((r) => r.x));
  const y0 = Math.min(...rects.map((r) => r.y));
  const x1 = Math.max(...rects.map((r) => r.x + r.width));
  const y1 = Math.max(...rects.map((r) => r.y + r.height));
  return { x: round2(x0), y: round2(y0), width: round2(x1 - x0), height: round2(y1 - y0) };
}

export function unionBox(boxes) {
  const left = Math.min(...boxes.map((b) => b.left));
  const top = Math.min(...boxes.map((b) => b.top));
  const right = Math.max(...boxes.map((b) => b.left + b.width));
  const bottom = Math.max(...boxes.map((b) => b.top + b.height));
  return { left, top, width: right - left, height: bottom - top };
}

export function boxesIntersect(a, b) {
  return (
    a.left < b.left + b.width &&
    b.left < a.left + a.width &&
    a.top < b.top + b.height &&
    b.top < a.top + a.height
  );
}

export function normalizeBox(x0, y0, x1, y1) {
  return {
    left: Math.min(x0, x1),
    top: Math.min(y0, y1),
    width: Math.abs(x1 - x0),
    height: Math.abs(y1 - y0),
  };
}

// Split a screen box into pieces: "columns" side by side, "rows" one below the other.
// ``weights`` gives the relative size of each piece (equal when omitted).
export function splitBox(box, count, direction, weights = null) {
  const sizes = weights || Array.from({ length: count }, () => 1);
  const total = sizes.reduce((a, b) => a + b, 0);
  const out = [];
  let offset = 0;
  for (const size of sizes) {
    const share = size / total;
    if (direction === "columns") {
      out.push({
        left: box.left + offset * box.width,
        top: box.top,
        width: share * box.width,
        height: box.height,
      });
    } else {
      out.push({
        left: box.left,
        top: box.top + offset * box.height,
        width: box.width,
        height: share * box.height,
      });
    }
    offset += share;
  }
  return out;
}
