// The page that embeds one of our pages in an iframe, for the signing page and the webforms.
//
// Messages go to window.parent with an exact target origin, never "*": the parent's origin as the
// browser reports it (location.ancestorOrigins in Chromium and Safari, else the origin of
// document.referrer), and only if the organization lists it among its embedding origins. A page
// we cannot name is told nothing.

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
