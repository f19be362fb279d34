// Talking to the page that embeds the signing page in an iframe.
//
// Events go to window.parent in two forms, as the published embed frames expect: the object
// ({action: "signerComplete", signerEid, ...}) and the legacy string, a URL whose query string
// carries the same keys. The target origin is always exact, never "*": the parent's origin as
// the browser reports it (location.ancestorOrigins in Chromium and Safari, else the origin of
// document.referrer), and only if the organization lists it among its embedding origins.
// Anything else gets no message: a page we cannot name is not told how signing went.

export function isFramed() {
  try {
    return window.parent !== window;
  } catch {
    return true;
  }
}

// The embedding page's origin, or null when not framed or when it is not an allowed origin.
export function parentOrigin(allowed) {
  if (!isFramed()) return null;
  let candidate = null;
  const ancestors = window.location.ancestorOrigins;
  if (ancestors && ancestors.length) {
    candidate = ancestors[0];
  } else if (document.referrer) {
    try {
      candidate = new URL(document.referrer).origin;
    } catch {
      candidate = null;
    }
  }
  if (!candidate || candidate === "null") return null;
  return (allowed || []).includes(candidate) ? candidate : null;
}

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
