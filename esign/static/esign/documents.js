// The documents: every page of every document is a picture drawn on the server
// (esign/engine/pages.py), laid out here at its own aspect ratio, with an overlay where the
// signer's fields are placed. No PDF reader runs in the page: a phone downloads one small
// picture per page, in the width its screen needs (srcset).
//
// The template holds only the first page (its picture is asked for before any script runs);
// the others are made here from the config's runs of equal pages, so a 200-page packet's page is
// as small as a 3-page one's. A later page's picture is asked for only once the first page's has
// arrived (they would share a slow link with it) and when the page comes near the view.
//
// Fields are placed as the template editor places them (templates_app/static/editor/geometry.js): the rect in
// PDF points of the page's unrotated user space goes through the page's viewport, built below as
// pdf.js builds it (its view box and /Rotate). The box is kept in percentages of the page, so
// the page can take any width (phone or desktop) without placing anything again.

import { h } from "#common/dom.js";
import { rectToBox } from "#common/page-box.js";
import { t } from "./strings.js";

// How far ahead of the view a page's picture is asked for: a view's height.
const AHEAD = "100% 0px";

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

// A document's pages, one {view, rotate} each, from the config's runs of equal pages.
function pagesOf(doc) {
  return (doc.pages || []).flatMap(({ view, rotate, count }) =>
    Array.from({ length: count }, () => ({ view, rotate })),
  );
}

export class DocumentsView {
  // ``options``: the link's token, the pictures' widths and the sizes attribute (the server's
  // PAGE_WIDTHS and PAGE_SIZES, as the first page has them).
  constructor(container, documents, { token = "", widths = [], sizes = "" } = {}) {
    this.pages = new Map(); // "fileId/pageIndex" -> page
    this.waiting = [];
    this.pictures = { token, widths, sizes };
    // The pages scroll within <main>, which clips them: "near the view" is near its box.
    this.scroller = container.closest(".sg-main");
    for (const doc of documents) {
      const section = container.querySelector(`.sg-document[data-file="${CSS.escape(doc.id)}"]`);
      if (!section) continue;
      const boxes = pagesOf(doc);
      boxes.forEach((info, index) => {
        const el =
          section.querySelector(`.sg-page[data-page="${index}"]`) ||
          this.make(section, doc, info, index, boxes.length);
        this.pages.set(`${doc.id}/${index}`, {
          base: viewportOf(info),
          el,
          overlay: el.querySelector(".sg-overlay"),
        });
      });
    }
    const first = container.querySelector(".sg-page img[src]");
    if (!first) {
      this.release();
      return;
    }
    this.watch(first.closest(".sg-page"));
    if (first.complete && first.naturalWidth) this.release();
    else {
      first.addEventListener("load", () => this.release(), { once: true });
      first.addEventListener("error", () => this.release(), { once: true });
    }
  }

  // A page laid out at its aspect ratio, its picture not asked for yet.
  make(section, doc, info, index, total) {
    const { width, height } = viewportOf(info);
    const img = h("img", { class: "sg-canvas", alt: "", decoding: "async" });
    const el = h(
      "div",
      {
        class: "sg-page",
        role: "group",
        "aria-label": t("page.label", { title: doc.title, number: index + 1, total }),
        dataset: { file: doc.id, page: String(index) },
      },
      img,
      h("div", { class: "sg-overlay" }),
    );
    el.style.aspectRatio = `${width} / ${height}`;
    section.append(el);
    this.waiting.push({ el, img, doc, index });
    return el;
  }

  // Mark a page drawn (or failed) once its picture arrives.
  watch(el) {
    const img = el.querySelector("img");
    if (img.complete && img.naturalWidth) el.classList.add("is-rendered");
    else {
      img.addEventListener("load", () => el.classList.add("is-rendered"), { once: true });
      img.addEventListener("error", () => el.classList.add("is-failed"), { once: true });
    }
  }

  // The first page is in: the others' pictures are asked for as they come near the view.
  release() {
    if (this.released) return;
    this.released = true;
    const byEl = new Map(this.waiting.map((page) => [page.el, page]));
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (!entry.isIntersecting) continue;
          observer.unobserve(entry.target);
          this.load(byEl.get(entry.target));
        }
      },
      { root: this.scroller, rootMargin: AHEAD },
    );
    for (const page of this.waiting) observer.observe(page.el);
  }

  load({ el, img, doc, index }) {
    const { token, widths, sizes } = this.pictures;
    const src = (width) =>
      `${doc.pagesUrl}${index}.webp?${new URLSearchParams({ w: width, v: doc.version, token })}`;
    this.watch(el);
    img.sizes = sizes;
    img.srcset = widths.map((width) => `${src(width)} ${width}w`).join(", ");
    img.src = src(800);
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
