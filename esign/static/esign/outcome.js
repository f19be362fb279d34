// How the signing page ends and talks to the server: the notice line, the result (done,
// declined, a link that stopped working), the signer's copy, the events for the embedding page,
// declining, and what a signer who cannot sign yet reads. The words are the server's, in the
// signer's language (strings.js).

import { h } from "#common/dom.js";
import { goTo, legacyMessage, postToParent } from "./embed.js";
import { pageLanguage, t, tNodes } from "./strings.js";

export function signingOutcome({ root, config, token }) {
  const $ = (selector) => document.querySelector(selector);

  // ``text``: a string, or nodes (tNodes) when it names someone.
  function notice(text, tone = "error") {
    const el = $("#sg-notice");
    el.replaceChildren(...[text].flat());
    el.dataset.tone = tone;
    el.hidden = !el.textContent;
  }

  // The signer's copy: each document as it stands (sealed once everybody signed and the service
  // sealed it; until then with every signature given so far).
  // ``copies``: the lasting links of a signer who signed (esign/packets/documents.py, from finishing or the
  // config), each opening its PDF for 90 days; without them, the documents by the signing token.
  function showCopies({ sealed = config.sealed, copies = config.copies } = {}) {
    const documents = copies || config.documents || [];
    if (!documents.length) return;
    const link = (doc) => {
      // A lasting link is absolute (for the event and the completion page): here, on this
      // page's own origin, so that it is saved rather than navigated to.
      const lasting = copies && new URL(doc.url, window.location.href);
      const href = lasting
        ? `${lasting.pathname}${lasting.search}`
        : `${doc.url}?${new URLSearchParams({ token, download: "1" })}`;
      return h(
        "li",
        {},
        // Saved under its name (the page may be in a frame); the lasting link itself opens the
        // PDF in the browser, as from the completion page or the event.
        // One span: the link is a flex box, whose every node would be a box of its own.
        h("a", { href, download: doc.filename }, h("span", {}, ...tNodes("copy.download", { title: doc.title }))),
      );
    };
    $("#sg-copies-note").textContent = t(
      sealed ? "copy.sealed" : config.getsEmails ? "copy.notSealedEmailed" : "copy.notSealed",
    );
    $("#sg-copies-list").replaceChildren(...documents.map(link));
    $("#sg-copies").hidden = false;
  }

  function showResult(stateName, title, text) {
    root.dataset.state = stateName;
    for (const dialog of document.querySelectorAll("dialog[open]")) dialog.close();
    notice("");
    $("#sg-result-title").textContent = title;
    $("#sg-result-text").replaceChildren(...[text].flat());
    // The result is the page's <main> now: the documents' one is hidden (one main at a time).
    $("#sg-main").hidden = true;
    $("#sg-result").hidden = false;
    $("#sg-result").focus();
  }

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Signing-Token": token },
      body: JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
    });
    let data;
    try {
      data = await response.json();
    } catch {
      data = {};
    }
    return { response, data };
  }

  // The link stopped working while the page was open (expired, revoked, cancelled). The event
  // keeps the server's (English) message, as the API's are; the signer reads it in their language.
  // The refusal is in the API's error shape, its name the link's errorType (LinkRefused,
  // esign/signing/views.py); a 403 without one (not JSON) reads as an invalid link.
  function linkRefused(data) {
    const errorType = data.name || "tokenInvalid";
    const event = {
      action: "signerError",
      errorType,
      error: errorType,
      message: data.message || "This signing link cannot be used.",
      signerEid: config.signerEid,
    };
    if (data.reason) event.reason = data.reason;
    postToParent(event, { origins: config.origins, legacy: legacyMessage(config.publicBaseUrl, event) });
    // A turn handed to someone else (notFound, reason signerForwarded) says so.
    const reason = data.reason === "signerForwarded" ? "forwarded" : errorType;
    showResult("error", t("linkRefused"), t(`error.${reason}`));
  }

  // A finishing answer that is no success and no problem with a field: the link refused (403),
  // the packet closed meanwhile (409), else a failure said in the notice.
  function notFinished(response, data) {
    if (response.status === 403) linkRefused(data);
    else if (response.status === 409) showResult("closed", t("closed"), t("closedText"));
    else notice(t("failed", { status: response.status }));
  }

  // The legacy string names a page that exists: the redirect URL, else the completion page.
  function finished(data, { stateName, title, text }) {
    if (data.event) postToParent(data.event, { origins: config.origins, legacy: data.legacyURL });
    if (data.redirectURL) {
      showResult(stateName, title, t("takingBack"));
      goTo(data.redirectURL);
      return;
    }
    showResult(stateName, title, text);
  }

  function setUpDecline() {
    const dialog = $("#sg-decline");
    const reason = $("#sg-decline-reason");
    const error = $("#sg-decline-error");
    let opener = null;
    const close = () => {
      if (dialog.open) dialog.close();
      if (opener && opener.isConnected) opener.focus();
    };
    $("#sg-decline-open").addEventListener("click", () => {
      opener = document.activeElement;
      error.hidden = true;
      dialog.showModal();
      reason.focus();
    });
    $("#sg-decline-cancel").addEventListener("click", close);
    reason.addEventListener("input", () => {
      error.hidden = true;
    });
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      close();
    });
    $("#sg-decline-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const text = reason.value.trim();
      if (!text) {
        error.textContent = t("decline.why");
        error.hidden = false;
        reason.focus();
        return;
      }
      $("#sg-decline-ok").disabled = true;
      let result;
      try {
        result = await post(config.declineUrl, { reason: text });
      } catch {
        result = null;
      }
      $("#sg-decline-ok").disabled = false;
      if (!result) {
        error.textContent = t("decline.unreachable");
        error.hidden = false;
        return;
      }
      const { response, data } = result;
      if (response.ok) {
        dialog.close();
        finished(data, {
          stateName: "declined",
          title: t("decline.done"),
          text: t("decline.doneText"),
        });
        return;
      }
      if (response.status === 403) {
        dialog.close();
        linkRefused(data);
        return;
      }
      error.textContent = t("decline.failed", { status: response.status });
      error.hidden = false;
    });
  }

  function waitingMessage() {
    if (config.signerStatus === "completed") return t("waiting.signed");
    if (config.signerStatus === "declined" || config.packetStatus === "declined") {
      return t("waiting.declined");
    }
    if (config.packetStatus === "completed") return t("waiting.completed");
    if (config.waitingFor && config.waitingFor.length) {
      const list = new Intl.ListFormat(pageLanguage(), { type: "conjunction" });
      // Each name isolated on its own, the list's words ("and") in the page's language.
      const names = list
        .formatToParts(config.waitingFor)
        .map((part) => (part.type === "element" ? h("bdi", {}, part.value) : part.value));
      return tNodes(config.waitingFor.length === 1 ? "waiting.one" : "waiting.many", { names });
    }
    return t("waiting.nothing");
  }

  return {
    notice,
    showCopies,
    showResult,
    post,
    linkRefused,
    notFinished,
    finished,
    setUpDecline,
    waitingMessage,
  };
}
