// Calls to the editor's admin endpoints (templates_app/editor.py). Every answer comes back as
// {ok, status, body}; a login page instead of JSON (the session ended) becomes a readable error.

export class Api {
  constructor(urls, csrfToken) {
    this.urls = urls;
    this.csrfToken = csrfToken;
  }

  async request(url, { method = "GET", body = undefined, expect = "json" } = {}) {
    const headers = { Accept: expect === "json" ? "application/json" : "application/pdf" };
    if (method !== "GET") {
      headers["Content-Type"] = "application/json";
      headers["X-CSRFToken"] = this.csrfToken;
    }
    let response;
    try {
      response = await fetch(url, {
        method,
        headers,
        credentials: "same-origin",
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      return {
        ok: false,
        status: 0,
        body: { message: `The server could not be reached (${error.message}).` },
      };
    }
    const type = response.headers.get("Content-Type") || "";
    if (response.ok && expect === "pdf" && type.startsWith("application/pdf")) {
      return { ok: true, status: response.status, blob: await response.blob() };
    }
    if (type.startsWith("application/json")) {
      return { ok: response.ok, status: response.status, body: await response.json() };
    }
    if (response.redirected || type.startsWith("text/html")) {
      return {
        ok: false,
        status: response.status,
        body: { message: "Your admin session has ended: log in again in another tab, then retry." },
      };
    }
    return {
      ok: false,
      status: response.status,
      body: { message: `Unexpected answer (HTTP ${response.status}).` },
    };
  }

  loadState() {
    return this.request(this.urls.spec);
  }

  save(spec, title) {
    return this.request(this.urls.spec, { method: "POST", body: { spec, title } });
  }

  publish() {
    return this.request(this.urls.publish, { method: "POST", body: {} });
  }

  preview(data) {
    return this.request(this.urls.preview, {
      method: "POST",
      body: data === undefined ? {} : { data },
      expect: "pdf",
    });
  }

  async pdfBytes() {
    const response = await fetch(this.urls.pdf, { credentials: "same-origin" });
    if (!response.ok)
      throw new Error(`The template's PDF could not be loaded (HTTP ${response.status}).`);
    return new Uint8Array(await response.arrayBuffer());
  }
}
