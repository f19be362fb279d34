// Talking to the page that embeds the signing page in an iframe.
//
// Events go to window.parent in two forms, as the published embed frames expect: the object
// ({action: "signerComplete", signerEid, ...}) for @anvilco/anvil-embed-frame, and the legacy
// string for @anvilco/react-signature-frame, whose integrators follow it
// (window.location.assign): a URL of a page that exists, whose query string carries the same
// keys. Both go to the parent's exact origin, only if it is allowed (static/embed/parent.js).
//
// The legacy frame opens the link with `&withinIframe=true` and hands its onFinish every
// message from the service's origin, objects included: its page gets the string only, else
// an integrator following its README goes to "/[object Object]" first. Any other parent (the
// embed frame, which ignores strings, or a plain iframe) gets both.

import { isFramed, parentOrigin } from "#embed/parent.js";

// The legacy string of an event the server made no URL for (a link that cannot be used):
// the service's completion page, `${base}/etch-complete?action=...` (null keys left out),
// which shows the error to whoever follows it.
export function legacyMessage(base, event) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(event)) {
    if (value !== null && value !== undefined) query.append(key, String(value));
  }
  return `${String(base).replace(/\/+$/, "")}/etch-complete?${query}`;
}

// Whether the page was opened by @anvilco/react-signature-frame (see above).
export function inLegacyFrame(search = window.location.search) {
  return new URLSearchParams(search).get("withinIframe") === "true";
}

function post(event, legacy, origin) {
  if (!inLegacyFrame()) window.parent.postMessage(event, origin);
  window.parent.postMessage(legacy, origin);
}

// Post the event and its legacy string to the parent; true when it was posted.
export function postToParent(event, { origins, legacy }) {
  const origin = parentOrigin(origins);
  if (!origin) return false;
  post(event, legacy, origin);
  return true;
}

// A link that cannot be used tells any page that frames it, whatever its origin, that it
// failed, so that the integrator is not left with a broken frame: only what is no secret (the
// error's type and message, and the signer eid of the link, which the framing page put in
// it), to "*". An allowed origin gets the whole event instead.
export function postErrorToAnyParent(event, { origins, base }) {
  if (postToParent(event, { origins, legacy: legacyMessage(base, event) })) return true;
  if (!isFramed()) return false;
  const { action, errorType, error, message, signerEid } = event;
  const open = { action, errorType, error, message, signerEid };
  post(open, legacyMessage(base, open), "*");
  return true;
}

// After finishing: the redirect URL, in the frame itself when framed (the integrator decides
// what its own page shows next), or in the window when signing top-level.
export function goTo(url) {
  window.location.assign(url);
}
