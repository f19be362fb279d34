// A builder link that opens nothing: tell whatever page frames it, whatever its origin, that
// it failed ({action: "embedError", errorType, message}: nothing secret), so that the
// integrator's AnvilEmbedFrame hears it instead of showing a page that does nothing.

import { isFramed } from "#embed/parent.js";

const event = JSON.parse(document.getElementById("embed-error").textContent);
if (isFramed()) window.parent.postMessage(event, "*");
