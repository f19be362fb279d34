// Telling the page that embeds a webform page in an iframe what happened.
//
// Events are objects ({action: "forgeSubmitPage" | "forgeComplete" | "weldComplete",
// organizationSlug, organizationEid, weldEid, weldDataEid, forgeEid, submissionEid}) posted to
// the parent's exact origin (static/embed/parent.js).

import { parentOrigin } from "#embed/parent.js";

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
