// The error page of a signing link (expired, invalid, cancelled): tell the embedding page, in
// both forms, as the signing page does when it finishes. An allowed origin gets the whole event;
// any other page that frames it gets the error's type and message (embed.js).

import { postErrorToAnyParent } from "./embed.js";

function readJson(id) {
  const el = document.getElementById(id);
  return el ? JSON.parse(el.textContent) : null;
}

const event = readJson("signing-error");
const origins = readJson("signing-origins") || [];
if (event) postErrorToAnyParent(event, { origins, base: window.location.origin });
