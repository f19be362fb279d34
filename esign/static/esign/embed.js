// Talking to the page that embeds the signing page in an iframe.
//
// Events go to window.parent in two forms, as the published embed frames expect: the object
// ({action: "signerComplete", signerEid, ...}) and the legacy string, a URL whose query string
// carries the same keys, to the parent's exact origin (static/embed/parent.js).

import { parentOrigin } from "../embed/parent.js";

// The legacy string form: `${base}/etch-complete?action=...&signerEid=...` (null keys left out).
export function legacyMessage(base, event) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(event)) {
    if (value !== null && value !== undefined) query.append(key, String(value));
  }
  return `${String(base).replace(/\/+$/, "")}/etch-complete?${query}`;
}

// Post the event in both forms to the parent; true when it was posted.
export function postToParent(event, { origins, base }) {
  const origin = parentOrigin(origins);
  if (!origin) return false;
  window.parent.postMessage(event, origin);
  window.parent.postMessage(legacyMessage(base, event), origin);
  return true;
}

// After finishing: the redirect URL, in the frame itself when framed (the integrator decides
// what its own page shows next), or in the window when signing top-level.
export function goTo(url) {
  window.location.assign(url);
}
