// The live preview: the selected page of the webform as drafted, drawn by the server exactly as
// the public form draws it (workflows/form.html), in an iframe. A moment after typing stops the
// draft is sent, then the page is loaded in the spare iframe, which replaces the shown one once
// loaded: no blank flash, and the shown one keeps its scroll.

import { serial } from "./saving.js";

const WAIT_MS = 300;
const LOAD_LIMIT_MS = 10_000;

// Resolves once the frame has loaded, or after a while (a page that never loads does not stop
// the updates after it).
function loaded(frame) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, LOAD_LIMIT_MS);
    frame.addEventListener(
      "load",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

export class Preview {
  constructor(frames, model, { urls, slug, postJSON }) {
    this.frames = frames;
    this.model = model;
    this.urls = urls;
    this.slug = slug;
    this.postJSON = postJSON;
    this.timer = null;
    this.count = 0;
    this.pending = false;
  }

  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // One update at a time, after any save: changes made meanwhile make one more.
      this.pending = true;
      serial(() => this.update());
    }, WAIT_MS);
  }

  async update() {
    if (!this.pending) return;
    this.pending = false;
    const count = ++this.count;
    try {
      await this.postJSON(this.urls.draft, { webform: this.model.toJSON() });
    } catch {
      return; // the next change tries again; the status shows what saving says, not this
    }
    const page = this.model.previewPage();
    const found = this.model.selected();
    const key = found && found.kind !== "page" ? found.item.data.key : "";
    const [shown, spare] = this.frames[0].dataset.spare ? [this.frames[1], this.frames[0]] : this.frames;
    const title = `Preview of page ${page + 1}: ${(this.model.pages[page] && this.model.pages[page].data.title) || ""}`;
    const query = new URLSearchParams({ forge: this.slug, page: String(page), v: String(count) });
    spare.src = `${this.urls.preview}?${query}`;
    await loaded(spare);
    // The selected field in view. Not by the address's #fragment, which may move the focus
    // into the frame as one types in the panel; nor by scrollIntoView, which would scroll the
    // builder too.
    const target =
      key && spare.contentDocument && spare.contentDocument.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (target)
      spare.contentWindow.scrollTo(0, target.getBoundingClientRect().top + spare.contentWindow.scrollY - 16);
    spare.title = title;
    spare.inert = false;
    delete spare.dataset.spare;
    shown.dataset.spare = "true";
    shown.inert = true;
    document.getElementById("wfb").dataset.preview = String(count);
  }
}
