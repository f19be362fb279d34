// The preview dialog: fill the working version with example data (or data typed as JSON) and
// show the filled pages, drawn with pdf.js as the editor's own pages are (page-canvas.js).

import { clear } from "#common/dom.js";
import { drawPage } from "./page-canvas.js";

export class Preview {
  constructor(dialog, { api, state, pdfjs, ensureSaved, name }) {
    this.dialog = dialog;
    this.api = api;
    this.state = state;
    this.pdfjs = pdfjs;
    this.ensureSaved = ensureSaved;
    this.name = name;
    this.data = dialog.querySelector("#ed-preview-data");
    this.pages = dialog.querySelector(".ed-preview-pages");
    this.message = dialog.querySelector(".ed-preview-message");
    this.download = dialog.querySelector("[data-action='preview-download']");
    this.edited = false;
    this.url = null;
    this.data.addEventListener("input", () => {
      this.edited = true;
    });
    dialog.querySelector("[data-action='preview-run']").addEventListener("click", () => this.run());
    dialog.querySelector("[data-action='preview-example']").addEventListener("click", () => {
      this.edited = false;
      this.fillExample();
      this.run();
    });
    dialog
      .querySelector("[data-action='preview-close']")
      .addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => this.release());
  }

  fillExample() {
    this.data.value = JSON.stringify(this.state.exampleData, null, 2);
  }

  async open() {
    if (!this.dialog.open) this.dialog.showModal();
    await this.run();
  }

  say(text, kind = "") {
    this.message.textContent = text;
    this.message.className = `ed-preview-message ${kind}`;
  }

  release() {
    if (this.url) URL.revokeObjectURL(this.url);
    this.url = null;
  }

  async run() {
    this.dialog.dataset.state = "loading";
    this.say("Saving…");
    // The preview fills what is saved: save first so it shows what is on screen.
    if (!(await this.ensureSaved())) {
      this.say(
        "The template has problems and was not saved: fix them (see the side panel) and try again.",
        "is-error",
      );
      this.dialog.dataset.state = "error";
      return;
    }
    if (!this.edited) this.fillExample();
    let data;
    try {
      data = JSON.parse(this.data.value || "{}");
    } catch (error) {
      this.say(`The data is not valid JSON: ${error.message}`, "is-error");
      this.dialog.dataset.state = "error";
      return;
    }
    this.say("Filling…");
    const response = await this.api.preview(data);
    if (!response.ok) {
      this.dialog.dataset.state = "error";
      const body = response.body || {};
      const details = (body.fields || []).map((f) => `${f.property}: ${f.message}`).join("\n");
      this.say(details || body.message || `The fill failed (HTTP ${response.status}).`, "is-error");
      return;
    }
    this.release();
    this.url = URL.createObjectURL(response.blob);
    this.download.href = this.url;
    this.download.download = `preview-${this.name}.pdf`;
    await this.show(await response.blob.arrayBuffer());
    this.dialog.dataset.state = "ready";
  }

  async show(bytes) {
    const pdf = await this.pdfjs.getDocument({
      data: new Uint8Array(bytes),
      isEvalSupported: false,
    }).promise;
    clear(this.pages);
    const width = Math.max(320, this.pages.clientWidth - 40);
    for (let index = 1; index <= pdf.numPages; index += 1) {
      const page = await pdf.getPage(index);
      const base = page.getViewport({ scale: 1 });
      const viewport = page.getViewport({ scale: Math.min(2, width / base.width) });
      const { canvas, task } = drawPage(page, viewport, "ed-preview-page");
      canvas.style.width = `${viewport.width}px`;
      canvas.style.height = `${viewport.height}px`;
      this.pages.append(canvas);
      await task.promise;
    }
    this.say(
      `${pdf.numPages} page${pdf.numPages === 1 ? "" : "s"} filled from the working version.`,
    );
    await pdf.destroy();
  }
}
