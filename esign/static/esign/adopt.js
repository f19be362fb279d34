// The "Adopt your signature" dialog: draw it (pointer, touch, pen) or type it (shown in the
// handwriting font the stamped PDF uses), plus initials when the signer has initial fields.
// open() resolves with the adoption, or null when the signer cancels.

import { SignaturePad } from "./pad.js";
import { t } from "./strings.js";

export function initialsOf(name) {
  return String(name || "")
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase())
    .join("")
    .slice(0, 3);
}

// The code point ranges some handwriting face covers ("0041-005A,0600-06FF"), as the page
// gives them (esign/signing/handwriting.py).
export function parseRanges(text) {
  return String(text || "")
    .split(",")
    .filter(Boolean)
    .map((range) => range.split("-").map((hex) => parseInt(hex, 16)));
}

// Whether some letter of ``text`` is in no handwriting face: then it is shown (and stamped) in
// a plain font, and the page says so. Spaces, digits and punctuation do not count.
export function hasPlainLetters(text, ranges) {
  for (const char of String(text || "")) {
    if (!/\p{L}/u.test(char)) continue;
    const code = char.codePointAt(0);
    if (!ranges.some(([start, end]) => code >= start && code <= end)) return true;
  }
  return false;
}

export class AdoptDialog {
  constructor(dialog, { signatureMode, name, needsInitials }) {
    this.dialog = dialog;
    this.name = name;
    this.needsInitials = needsInitials;
    this.canDraw = signatureMode !== "text";
    this.resolve = null;
    this.$ = (selector) => dialog.querySelector(selector);
    this.pad = new SignaturePad(this.$("#sg-pad"));
    this.typed = this.$("#sg-typed");
    this.initials = this.$("#sg-initials");
    this.error = this.$("#sg-adopt-error");
    this.plain = this.$("#sg-typed-plain");
    this.handLetters = parseRanges(this.plain.dataset.letters);

    this.$("#sg-modes").hidden = !this.canDraw;
    this.$("#sg-initials-row").hidden = !needsInitials;
    if (needsInitials) {
      this.$("#sg-legal").textContent = t("dialog.legalInitials");
    }
    for (const radio of dialog.querySelectorAll("input[name=mode]")) {
      radio.addEventListener("change", () => this.showMode(radio.value));
    }
    this.$("#sg-pad-clear").addEventListener("click", () => this.pad.clear());
    this.pad.addEventListener("change", () => this.setError(""));
    this.typed.addEventListener("input", () => this.preview());
    this.initials.addEventListener("input", () => this.preview());
    this.$("#sg-adopt-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    this.$("#sg-adopt-cancel").addEventListener("click", () => this.finish(null));
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      this.finish(null);
    });
  }

  mode() {
    if (!this.canDraw) return "text";
    return this.dialog.querySelector("input[name=mode]:checked")?.value || "draw";
  }

  showMode(mode) {
    this.dialog.dataset.mode = mode;
    this.$("#sg-draw-panel").hidden = mode !== "draw";
    this.$("#sg-type-panel").hidden = mode !== "text";
    this.setError("");
  }

  preview() {
    this.$("#sg-typed-preview").textContent = this.typed.value.trim() || "\u00a0";
    this.$("#sg-initials-preview").textContent = this.initials.value.trim();
    const plain = hasPlainLetters(this.typed.value, this.handLetters);
    this.plain.hidden = !plain;
    // The note describes the name's field while it applies.
    if (plain) this.typed.setAttribute("aria-describedby", this.plain.id);
    else this.typed.removeAttribute("aria-describedby");
  }

  setError(message) {
    this.error.textContent = message;
    this.error.hidden = !message;
  }

  open(current, { initialsOnly = false } = {}) {
    this.initialsOnly = initialsOnly && this.needsInitials;
    this.current = current;
    this.dialog.dataset.only = this.initialsOnly ? "initials" : "";
    this.$("#sg-adopt-title").textContent = t(
      this.initialsOnly ? "dialog.initials" : "dialog.signature",
    );
    this.$("#sg-modes").hidden = this.initialsOnly || !this.canDraw;
    const mode = current?.mode || (this.canDraw ? "draw" : "text");
    for (const radio of this.dialog.querySelectorAll("input[name=mode]")) {
      radio.checked = radio.value === mode;
    }
    this.typed.value = current?.typed || this.name;
    this.initials.value = current?.initials || initialsOf(this.name);
    this.showMode(mode);
    if (this.initialsOnly) {
      this.$("#sg-draw-panel").hidden = true;
      this.$("#sg-type-panel").hidden = true;
    }
    this.preview();
    this.opener = document.activeElement;
    this.dialog.showModal();
    // The first thing to do: choose the way to sign, or type the name (or the initials).
    const first = this.initialsOnly
      ? this.initials
      : this.canDraw
        ? this.dialog.querySelector("input[name=mode]:checked")
        : this.typed;
    first?.focus();
    return new Promise((resolve) => {
      this.resolve = resolve;
    });
  }

  submit() {
    if (this.initialsOnly) {
      const initials = this.initials.value.trim();
      if (!initials) {
        this.setError(t("dialog.typeInitials"));
        this.initials.focus();
        return;
      }
      const kept = this.current || { mode: this.canDraw ? "draw" : "text", drawn: null, typed: "" };
      this.finish({ ...kept, initials });
      return;
    }
    const mode = this.mode();
    const adoption = { mode, drawn: null, typed: "", initials: "" };
    if (mode === "draw") {
      if (this.pad.isEmpty()) {
        this.setError(t("dialog.drawFirst"));
        return;
      }
      adoption.drawn = this.pad.toDataURL();
    } else {
      adoption.typed = this.typed.value.trim();
      if (!adoption.typed) {
        this.setError(t("dialog.typeName"));
        this.typed.focus();
        return;
      }
    }
    if (this.needsInitials) {
      adoption.initials = this.initials.value.trim();
      if (!adoption.initials) {
        this.setError(t("dialog.typeInitials"));
        this.initials.focus();
        return;
      }
    }
    this.finish(adoption);
  }

  finish(result) {
    this.setError("");
    if (this.dialog.open) this.dialog.close();
    if (this.opener && this.opener.isConnected) this.opener.focus();
    const resolve = this.resolve;
    this.resolve = null;
    if (resolve) resolve(result);
  }
}
