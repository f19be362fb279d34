// Telling the page that embeds a webform page in an iframe what happened.
//
// Events are objects ({action: "forgeSubmitPage" | "forgeComplete" | "weldComplete",
// organizationSlug, organizationEid, weldEid, weldDataEid, forgeEid, submissionEid}) posted to
// the parent's exact origin (static/embed/parent.js).

// Posting them is shared with the embedded builders (#embed/events.js).
export { postEvents } from "#embed/events.js";

export function readConfig(id) {
  const element = document.getElementById(id);
  return element ? JSON.parse(element.textContent) : {};
}
