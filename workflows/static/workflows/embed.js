// Telling the page that embeds a webform page in an iframe what happened.
//
// Events are objects ({action: "forgeSubmitPage" | "forgeComplete" | "weldComplete",
// organizationSlug, organizationEid, weldEid, weldDataEid, forgeEid, submissionEid}) posted to
// window.parent with an exact target origin, never "*": the parent's origin as the browser
// reports it (location.ancestorOrigins in Chromium and Safari, else the origin of
// document.referrer), and only if the organization allows it to embed its pages (or it is this
// service itself). A page we cannot name is told nothing.

export function isFramed() {
  try {
    return window.parent !== window;
  } catch {
    return true;
  }
}

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

// Post each event to the parent; how many were posted.
export function postEvents(events, allowed) {
  const origin = parentOrigin(allowed);
  if (!origin) return 0;
  for (const event of events || []) window.parent.postMessage(event, origin);
  return (events || []).length;
}

export function readConfig(id) {
  const element = document.getElementById(id);
  return element ? JSON.parse(element.textContent) : {};
}
