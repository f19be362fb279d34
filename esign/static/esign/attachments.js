// The files the signer is asked to attach (esign.signing.attachments): each field of the "Files to
// attach" section uploads the file chosen (or the photo taken) at once, shows what is attached
// and lets it be removed. The server checks every file by its content; what it refuses is shown
// beside the field. Finishing asks for the required ones first (missingBeforeFinish), and the
// guide counts them (requiredCount, firstMissing; ``onChange`` tells it a file came or went).

import { t, tNodes } from "./strings.js";

export class AttachmentsPanel {
  constructor(root, config, token, { onChange = () => {} } = {}) {
    this.root = root; // the section, or null when the signer has nothing to attach
    this.token = token;
    this.onChange = onChange;
    this.uploadUrl = config.attachmentUrl;
    this.removeUrl = config.attachmentRemoveUrl;
    this.fields = new Map((config.attachments || []).map((field) => [field.id, field]));
    this.busy = 0;
    if (!root) return;
    for (const item of root.querySelectorAll(".sg-attachment")) {
      const id = item.dataset.field;
      for (const input of item.querySelectorAll("input[type=file]")) {
        input.addEventListener("change", () => {
          const file = input.files && input.files[0];
          input.value = ""; // the same file may be chosen again after a refusal
          if (file) this.upload(id, file);
        });
      }
      item.querySelector("[data-role=remove]").addEventListener("click", () => this.remove(id));
    }
  }

  item(id) {
    return [...this.root.querySelectorAll(".sg-attachment")].find((el) => el.dataset.field === id);
  }

  // ``message``: a string, or nodes (tNodes) when it names the field.
  setError(id, message) {
    const item = this.item(id);
    if (!item) return;
    const error = item.querySelector("[data-role=error]");
    error.replaceChildren(...[message || ""].flat());
    error.hidden = !message || !error.textContent;
    item.classList.toggle("is-error", Boolean(message));
  }

  render(id) {
    const item = this.item(id);
    const field = this.fields.get(id);
    if (!item || !field) return;
    const file = field.file;
    item
      .querySelector("[data-role=file]")
      .replaceChildren(
        ...(file
          ? tNodes("attach.attached", { name: file.filename, size: file.sizeText })
          : [t("attach.nothing")]),
      );
    item.querySelector("[data-role=remove]").hidden = !file;
    item.classList.toggle("is-done", Boolean(file));
  }

  setBusy(id, busy) {
    const item = this.item(id);
    if (!item) return;
    for (const control of item.querySelectorAll("input, button")) control.disabled = busy;
    item.setAttribute("aria-busy", busy ? "true" : "false");
    if (busy) item.querySelector("[data-role=file]").textContent = t("attach.uploading");
  }

  async send(id, url, options) {
    this.setError(id, "");
    this.setBusy(id, true);
    this.busy += 1;
    try {
      const response = await fetch(url, {
        method: "POST",
        credentials: "omit",
        cache: "no-store",
        ...options,
        headers: { "X-Signing-Token": this.token, ...(options.headers || {}) },
      });
      let data = {};
      try {
        data = await response.json();
      } catch {
        data = {};
      }
      if (response.ok) {
        for (const field of data.attachments || []) this.fields.set(field.id, field);
        return true;
      }
      const message =
        (Array.isArray(data.fields) && data.fields.map((p) => p.message).join(" ")) ||
        data.message ||
        t("attach.failed", { status: response.status });
      this.setError(id, message);
      return false;
    } catch {
      this.setError(id, t("attach.unreachable"));
      return false;
    } finally {
      this.busy -= 1;
      this.setBusy(id, false);
      this.render(id);
      this.onChange();
    }
  }

  async upload(id, file) {
    const field = this.fields.get(id);
    if (field && file.size > field.maxBytes) {
      // Said at once, without sending megabytes the server would refuse.
      this.setError(id, t("attach.tooLarge", { size: field.maxSize }));
      return;
    }
    const body = new FormData();
    body.append("fieldId", id);
    body.append("file", file, file.name || "photo.jpg");
    if (await this.send(id, this.uploadUrl, { body })) {
      this.announce(t("attach.done", { label: field ? field.label : id }));
    }
  }

  async remove(id) {
    const done = await this.send(id, this.removeUrl, {
      body: JSON.stringify({ fieldId: id }),
      headers: { "Content-Type": "application/json" },
    });
    if (done) {
      this.announce(t("attach.removed"));
      this.item(id).querySelector("input[type=file]")?.focus();
    }
  }

  announce(text) {
    const live = document.getElementById("sg-live");
    if (!live) return;
    live.textContent = "";
    setTimeout(() => {
      live.textContent = text;
    }, 30);
  }

  // The required fields, and how many of them have their file, for the guide's count.
  requiredCount() {
    const required = [...this.fields.values()].filter((field) => field.required);
    return { required: required.length, attached: required.filter((f) => f.file).length };
  }

  // The first required field without a file, or null.
  firstMissing() {
    return [...this.fields.values()].find((field) => field.required && !field.file) || null;
  }

  // Before finishing: the first required field without a file gets its message and the focus;
  // true when one is missing (or a file is still being sent).
  missingBeforeFinish() {
    if (!this.root) return false;
    for (const [id, field] of this.fields) {
      if (this.busy || (field.required && !field.file)) {
        this.setError(
          id,
          this.busy ? t("attach.wait") : tNodes("attach.missing", { label: field.label }),
        );
        const item = this.item(id);
        item.scrollIntoView({ block: "center" });
        item.querySelector("input[type=file]")?.focus({ preventScroll: true });
        return true;
      }
    }
    return false;
  }

  // The server's problems about attachments (attachments.<field id>) beside their fields;
  // true when there was one.
  showProblems(problems) {
    let shown = false;
    for (const problem of problems) {
      const property = String(problem.property || "");
      if (!property.startsWith("attachments.")) continue;
      const id = property.slice("attachments.".length);
      this.setError(id, problem.message);
      if (!shown) this.item(id)?.scrollIntoView({ block: "center" });
      shown = true;
    }
    return shown;
  }
}
