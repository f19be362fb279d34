// An approver's signing page (role "approver", an extension): no field to fill; Approve finishes
// (the server stamps nothing), Reject is the decline dialog, whose reason is required. The words
// are the server's, said of approving (esign/signing/role_strings.py).

import { t } from "./strings.js";

export function setUpApproval({ config, post, finished, notice, showCopies, notFinished }) {
  const button = document.getElementById("sg-approve");
  if (!button) return;
  const label = button.textContent;
  button.addEventListener("click", async () => {
    notice("");
    button.disabled = true;
    button.textContent = t("approving");
    button.setAttribute("aria-busy", "true");
    let result;
    try {
      result = await post(config.completeUrl, {});
    } catch {
      result = null;
    }
    button.disabled = false;
    button.textContent = label;
    button.setAttribute("aria-busy", "false");
    if (!result) {
      notice(t("unreachable"));
      return;
    }
    const { response, data } = result;
    if (response.ok) {
      // The approver keeps a copy of what they approved, as a signer does.
      if (!data.redirectURL) showCopies({ sealed: false, copies: data.copies });
      finished(data, { stateName: "done", title: t("approve.done"), text: t("approve.doneText") });
      return;
    }
    notFinished(response, data);
  });
}
