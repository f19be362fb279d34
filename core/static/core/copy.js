// Copy buttons: <button data-copy-from="ID" data-copied="Copied" data-copy-status="ID">
// copies the text of the element with id ID; where the clipboard cannot be used (no secure
// context, a refusal), it selects the text and tries the older copy command instead.
(() => {
  "use strict";

  const select = (source) => {
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  };

  for (const button of document.querySelectorAll("button[data-copy-from]")) {
    const source = document.getElementById(button.dataset.copyFrom);
    const status = button.dataset.copyStatus
      ? document.getElementById(button.dataset.copyStatus)
      : null;
    if (!source) continue;
    const say = (text) => {
      if (status && text) status.textContent = text;
    };
    const copied = () => {
      button.textContent = button.dataset.copied || "Copied";
      say(button.dataset.copiedStatus);
    };
    const fallback = () => {
      select(source);
      let ok;
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
      if (ok) copied();
      else say(button.dataset.selectedStatus);
    };
    button.addEventListener("click", () => {
      const text = source.textContent.trim();
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(copied, fallback);
      } else {
        fallback();
      }
    });
  }
})();
