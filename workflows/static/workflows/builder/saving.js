// Talking to the builder's endpoints: JSON with the admin's CSRF token, and the save, whose
// refusal names each problem by its path in what was sent.

import { applyProblems } from "./problems.js";

export function csrfToken() {
  const input = document.querySelector("#wfb input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

export class RequestFailed extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `The server answered ${status}.`);
    this.status = status;
    this.body = body;
  }
}

export async function requestJSON(url, { method = "GET", body } = {}) {
  const response = await fetch(url, {
    method,
    credentials: "same-origin",
    headers: {
      Accept: "application/json",
      ...(body === undefined ? {} : { "Content-Type": "application/json", "X-CSRFToken": csrfToken() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new RequestFailed(response.status, data);
  return data;
}

export const postJSON = (url, body) => requestJSON(url, { method: "POST", body });

// The builder's requests one after another (a save, the preview's draft and page): none reads
// what another is writing, and a save is never overtaken by an older draft.
let queue = Promise.resolve();
export function serial(work) {
  const next = queue.then(work, work);
  queue = next.catch(() => {});
  return next;
}

// Saves the model; true when saved. A refusal marks the problems on their pages and fields.
export async function save(model, url) {
  const sent = model.sentShape();
  const version = model.version;
  try {
    const state = await postJSON(url, { webform: model.toJSON() });
    if (model.version === version) model.load(state);
    else {
      // Typed while saving: what was typed stays (unsaved), with the rows just made.
      model.adoptRows(state, sent);
      return { saved: true, changedSince: true };
    }
    return { saved: true };
  } catch (error) {
    if (error instanceof RequestFailed && error.body && Array.isArray(error.body.fields)) {
      applyProblems(model, error.body.fields, sent);
      return { saved: false, problems: error.body.fields.length };
    }
    return { saved: false, message: error.message };
  }
}
