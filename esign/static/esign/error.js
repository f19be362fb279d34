// The error page of a signing link (expired, invalid, cancelled): tell the embedding page, in
// both forms and only to an allowed origin, as the signing page does when it finishes.

import { postToParent } from "./embed.js";

function readJson(id) {
  const el = document.getElementById(id);
  return el ? JSON.parse(el.textContent) : null;
}

const event = readJson("signing-error");
const origins = readJson("signing-origins") || [];
if (event) postToParent(event, { origins, base: window.location.origin });
