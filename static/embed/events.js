// Events for the page that embeds one of our pages (webforms, the embedded builders): objects
// ({action: ..., ...}) as @anvilco/anvil-embed-frame hands them to its onEvent, posted to the
// parent's exact origin, only if the organization allows it (parent.js).

import { parentOrigin } from "#embed/parent.js";

// Post each event to the parent; how many were posted.
export function postEvents(events, allowed) {
  const origin = parentOrigin(allowed);
  if (!origin) return 0;
  for (const event of events || []) window.parent.postMessage(event, origin);
  return (events || []).length;
}
