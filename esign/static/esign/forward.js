// Handing one's turn to someone else (an extension, esign/signing/forwarding.py): the Forward dialog asks
// for the person's name and email, posts them, and ends the page with who signs instead. The
// server's problems come back by the field they name, in the signer's language.

import { t, tNodes } from "./strings.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function setUpForward({ config, post, showResult, linkRefused }) {
  const $ = (selector) => document.querySelector(selector);
  const dialog = $("#sg-forward");
  if (!dialog || !config.canForward) return;
  const inputs = { name: $("#sg-forward-name"), email: $("#sg-forward-email") };
  const errors = { name: $("#sg-forward-name-error"), email: $("#sg-forward-email-error") };
  const general = $("#sg-forward-error");
  const ok = $("#sg-forward-ok");
  let opener = null;

  function clear() {
    for (const key of Object.keys(inputs)) {
      errors[key].hidden = true;
      inputs[key].removeAttribute("aria-invalid");
    }
    general.hidden = true;
  }

  function problem(key, text) {
    errors[key].textContent = text;
    errors[key].hidden = false;
    inputs[key].setAttribute("aria-invalid", "true");
  }

  const close = () => {
    if (dialog.open) dialog.close();
    if (opener && opener.isConnected) opener.focus();
  };
  $("#sg-forward-open").addEventListener("click", () => {
    opener = document.activeElement;
    clear();
    dialog.showModal();
    inputs.name.focus();
  });
  $("#sg-forward-cancel").addEventListener("click", close);
  dialog.addEventListener("cancel", (event) => {
    event.preventDefault();
    close();
  });
  for (const [key, input] of Object.entries(inputs)) {
    input.addEventListener("input", () => {
      errors[key].hidden = true;
      input.removeAttribute("aria-invalid");
    });
  }

  $("#sg-forward-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    clear();
    const name = inputs.name.value.trim();
    const email = inputs.email.value.trim();
    if (!name) problem("name", t("forward.name"));
    if (!EMAIL.test(email)) problem("email", t("forward.email"));
    const invalid = Object.keys(inputs).find((key) => !errors[key].hidden);
    if (invalid) {
      inputs[invalid].focus();
      return;
    }
    ok.disabled = true;
    let result;
    try {
      result = await post(config.forwardUrl, { name, email });
    } catch {
      result = null;
    }
    ok.disabled = false;
    if (!result) {
      general.textContent = t("forward.unreachable");
      general.hidden = false;
      return;
    }
    const { response, data } = result;
    if (response.ok) {
      dialog.close();
      const to = data.forwardedTo || { name, email };
      showResult("forwarded", t("forward.done"), tNodes("forward.doneText", to));
      return;
    }
    if (response.status === 400 && Array.isArray(data.fields)) {
      for (const each of data.fields) {
        const key = each.property in inputs ? each.property : null;
        if (key) problem(key, each.message);
        else {
          general.textContent = each.message;
          general.hidden = false;
        }
      }
      const first = Object.keys(inputs).find((key) => !errors[key].hidden);
      if (first) inputs[first].focus();
      return;
    }
    if (response.status === 403) {
      dialog.close();
      linkRefused(data);
      return;
    }
    if (response.status === 409) {
      dialog.close();
      showResult("closed", t("closed"), t("closedText"));
      return;
    }
    general.textContent = t("forward.failed", { status: response.status });
    general.hidden = false;
  });
}
