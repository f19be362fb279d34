// The last page of a workflow: tell the embedding page (see embed.js).
import { postEvents, readConfig } from "./embed.js";

const config = readConfig("wf-config");
document.body.dataset.posted = String(postEvents(config.events, config.origins));
if (config.continueUrl) {
  try {
    history.replaceState(null, "", config.continueUrl);
  } catch {
    // another origin than the page's: the address stays as it is
  }
}
document.getElementById("wf-main")?.setAttribute("data-state", "ready");
