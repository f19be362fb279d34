// Arithmetic on rectangles (PDF points, y up) and boxes (CSS pixels, y down) for the editor's
// tools: moving, scaling, joining, splitting. Converting between the two spaces is a page's
// viewport's work (#common/page-box.js).

import { round2 } from "#common/page-box.js";

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

// An element's style that sets it over ``box`` (CSS pixels of the overlay it is in).
export function boxStyle(box) {
  return {
    left: `${box.left}px`,
    top: `${box.top}px`,
    width: `${box.width}px`,
    height: `${box.height}px`,
  };
}
