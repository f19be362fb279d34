// Saving and publishing the working version. One save runs at a time (a second one waits for
// it); a refused save puts its problems on the fields and shows the first. ``busy`` says what is
// under way; a "change" event asks the status bar to show it. "saved" and "published" events
// (detail: the server's answer) tell whoever listens what was stored (the embedded builder
// tells its parent page).

export class Saver extends EventTarget {
  constructor({ api, state, view, toast }) {
    super();
    this.api = api;
    this.state = state;
    this.view = view;
    this.toast = toast;
    this.busy = "";
    this.saving = null;
  }

  changed() {
    this.dispatchEvent(new Event("change"));
  }

  // Resolves to true once everything is saved, false if the server refused it.
  async save() {
    if (this.saving) await this.saving;
    const { state } = this;
    if (!state.dirty && !state.problems.length) return true;
    this.saving = this.send();
    try {
      return await this.saving;
    } finally {
      this.saving = null;
    }
  }

  async send() {
    const { api, state, view, toast } = this;
    const sentRevision = state.revision;
    const sentSpec = state.specForSave();
    const sentJson = state.json();
    this.busy = "Saving…";
    this.changed();
    const response = await api.save(sentSpec, state.title);
    this.busy = "";
    if (response.ok) {
      state.markSaved(sentRevision, sentJson, response.body);
      this.changed();
      this.dispatchEvent(new CustomEvent("saved", { detail: response.body }));
      return true;
    }
    if (response.status === 400 && Array.isArray(response.body.fields)) {
      state.setProblems(response.body.fields, sentSpec);
      const first = state.problems.find((p) => p.fieldId);
      if (first) view.revealField(first.fieldId);
      toast("Not saved: the template has problems (see the side panel).", "is-error");
    } else {
      toast(response.body.message || `Not saved (HTTP ${response.status}).`, "is-error");
      this.dispatchEvent(new CustomEvent("refused", { detail: response }));
    }
    this.changed();
    return false;
  }

  async publish() {
    const { api, state, toast } = this;
    if ((state.dirty || state.problems.length) && !(await this.save())) return;
    this.busy = "Publishing…";
    this.changed();
    const response = await api.publish();
    this.busy = "";
    if (response.ok) {
      state.summary = response.body.summary;
      toast(`Published as version ${response.body.publishedNumber}.`, "is-success");
      this.dispatchEvent(new CustomEvent("published", { detail: response.body }));
    } else if (response.status === 400 && Array.isArray(response.body.fields)) {
      state.setProblems(response.body.fields, state.specForSave());
      toast("Not published: the template has problems (see the side panel).", "is-error");
    } else {
      toast(response.body.message || `Not published (HTTP ${response.status}).`, "is-error");
      this.dispatchEvent(new CustomEvent("refused", { detail: response }));
    }
    this.changed();
  }
}
