// The settings page works without this script; it adds copy buttons, show/hide for secrets and
// a confirmation before destructive changes.
(function () {
  "use strict";

  function announce(button, text) {
    var original = button.dataset.label || button.textContent;
    button.dataset.label = original;
    button.textContent = text;
    setTimeout(function () { button.textContent = original; }, 1500);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-copy]");
    if (button) {
      var field = document.getElementById(button.dataset.copy);
      if (!field) return;
      var done = function () { announce(button, "Copied"); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, function () { announce(button, "Copy failed"); });
      } else {
        var type = field.type;
        field.type = "text";
        field.select();
        try { document.execCommand("copy"); done(); } catch (e) { announce(button, "Select and copy"); }
        field.type = type;
      }
      return;
    }
    var reveal = event.target.closest("button[data-reveal]");
    if (reveal) {
      var secret = document.getElementById(reveal.dataset.reveal);
      if (!secret) return;
      var shown = secret.type === "text";
      secret.type = shown ? "password" : "text";
      reveal.textContent = shown ? "Show" : "Hide";
      reveal.setAttribute("aria-pressed", shown ? "false" : "true");
    }
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var submitter = event.submitter;
    var question = (submitter && submitter.dataset.confirm) || form.dataset.confirm;
    if (question && !window.confirm(question)) event.preventDefault();
  });

  // A refused change: the page comes back at its top with the error summary focused (read first
  // by a screen reader, in view on a phone); each of its links moves focus to its control and
  // shows the control's label with it, as GOV.UK's error summary does.
  var summary = document.getElementById("error-summary");
  if (summary) {
    summary.focus();
    summary.addEventListener("click", function (event) {
      var link = event.target.closest("a[href^='#']");
      if (!link) return;
      var target = document.getElementById(link.getAttribute("href").slice(1));
      if (!target) return;
      event.preventDefault();
      var label = target.id && document.querySelector("label[for='" + target.id + "']");
      var legend = target.closest("fieldset") && target.closest("fieldset").querySelector("legend");
      (legend || label || target).scrollIntoView({ block: "center" });
      target.focus({ preventScroll: true });
    });
  }

  var newKey = document.getElementById("new-key-value");
  if (newKey) { newKey.focus(); newKey.select(); }
})();
