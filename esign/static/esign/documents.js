// The documents: every page of every document is a picture drawn on the server
// (esign/engine/pages.py), laid out by the template at its own aspect ratio, with an overlay
// where the signer's fields are placed. No PDF reader runs in the page: a phone downloads one
// small picture per page, in the width its screen needs (srcset), and only when near the view
// (loading="lazy").
//
// Fields are placed as the template editor places them (static/editor/geometry.js): the rect in
// PDF points of the page's unrotated user space goes through the page's viewport, built below as
// pdf.js builds it (its view box and /Rotate). The box is kept in percentages of the page, so
// the page can take any width (phone or desktop) without placing anything again.

import { rectToBox } from "../common/page-box.js";

// pdf.js' PageViewport at scale 1, for a page whose visible box is ``view`` ([x0, y0, x1, y1]
// in points) turned by ``rotate`` degrees clockwise.
export function viewportOf({ view, rotate }) {
  const [x0, y0, x1, y1] = view;
  const centerX = (x0 + x1) / 2;
  const centerY = (y0 + y1) / 2;
  const [a, b, c, d] = {
    90: [0, 1, 1, 0],
    180: [-1, 0, 0, 1],
    270: [0, -1, -1, 0],
  }[((rotate % 360) + 360) % 360] || [1, 0, 0, -1];
  const turned = rotate % 180 !== 0;
  const width = turned ? Math.abs(y1 - y0) : Math.abs(x1 - x0);
  const height = turned ? Math.abs(x1 - x0) : Math.abs(y1 - y0);
  const offsetX = turned ? Math.abs(centerY - y0) : Math.abs(centerX - x0);
  const offsetY = turned ? Math.abs(centerX - x0) : Math.abs(centerY - y0);
  const e = offsetX - a * centerX - c * centerY;
  const f = offsetY - b * centerX - d * centerY;
  const point = (x, y) => [a * x + c * y + e, b * x + d * y + f];
  return {
    width,
    height,
    convertToViewportRectangle([rx0, ry0, rx1, ry1]) {
      return [...point(rx0, ry0), ...point(rx1, ry1)];
    },
  };
}

export class DocumentsView {
  constructor(container, documents) {
    this.pages = new Map(); // "fileId/pageIndex" -> page
    const byId = new Map(documents.map((doc) => [doc.id, doc]));
    for (const el of container.querySelectorAll(".sg-page")) {
      const index = Number(el.dataset.page);
      const info = byId.get(el.dataset.file)?.pages?.[index];
      if (!info) continue;
      const img = el.querySelector("img");
      const shown = () => el.classList.add("is-rendered");
      if (img.complete && img.naturalWidth) shown();
      else {
        img.addEventListener("load", shown, { once: true });
        img.addEventListener("error", () => el.classList.add("is-failed"), { once: true });
      }
      this.pages.set(`${el.dataset.file}/${index}`, {
        base: viewportOf(info),
        el,
        overlay: el.querySelector(".sg-overlay"),
      });
    }
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
}
