// GraphiQL at GET /graphql. Without an API key, queries run with the member's session as the
// organization chosen in the bar (POST /graphql/member, CSRF token from the page; queries only).
// With an API key typed into the bar, everything goes to POST /graphql with the key (HTTP Basic,
// the key as user name), exactly as a client sends it; never with cookies. Either change gives
// GraphiQL a new fetcher, so it loads the schema again as that caller.
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("graphiql-config").textContent);
  const keyInput = document.getElementById("gq-api-key");
  const keyState = document.getElementById("gq-key-state");
  const orgSelect = document.getElementById("gq-org");
  const root = document.getElementById("graphiql");
  const STORAGE = "graphiql.apiKey";
  const ORG_STORAGE = "graphiql.organization";

  function keyFetcher(key) {
    return async function fetcher(params, options) {
      const headers = { "Content-Type": "application/json", Accept: "application/json" };
      headers.Authorization = "Basic " + btoa(key + ":");
      Object.assign(headers, (options && options.headers) || {});
      const response = await fetch(config.endpoint, {
        method: "POST",
        headers: headers,
        body: JSON.stringify(params),
        credentials: "omit",
      });
      return response.json();
    };
  }

  function sessionFetcher(slug) {
    const url = config.memberEndpoint + "?organization=" + encodeURIComponent(slug);
    return async function fetcher(params, options) {
      const headers = {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRFToken": config.csrfToken,
      };
      Object.assign(headers, (options && options.headers) || {});
      const response = await fetch(url, {
        method: "POST",
        headers: headers,
        body: JSON.stringify(params),
        credentials: "same-origin",
      });
      return response.json();
    };
  }

  for (const organization of config.organizations) {
    const option = document.createElement("option");
    option.value = organization.slug;
    option.textContent = organization.name;
    orgSelect.appendChild(option);
  }
  const keptOrg = sessionStorage.getItem(ORG_STORAGE);
  if (keptOrg && config.organizations.some((o) => o.slug === keptOrg)) orgSelect.value = keptOrg;

  function orgName() {
    const chosen = orgSelect.options[orgSelect.selectedIndex];
    return chosen ? chosen.textContent : "";
  }

  let shown = null;
  function show() {
    const key = keyInput.value.trim();
    const slug = orgSelect.value;
    let fetcher = null;
    orgSelect.disabled = Boolean(key) || !config.organizations.length;
    if (key) {
      keyState.textContent = "Queries and mutations run as this API key's organization.";
      fetcher = keyFetcher(key);
    } else if (slug) {
      keyState.textContent =
        "Queries run as " + orgName() + " with your session; mutations need an API key.";
      fetcher = sessionFetcher(slug);
    } else {
      keyState.textContent = "Paste an API key to run queries.";
    }
    const caller = key ? "key:" + key : "org:" + slug;
    if (caller === shown) return;
    shown = caller;
    sessionStorage.setItem(STORAGE, key);
    sessionStorage.setItem(ORG_STORAGE, slug);
    if (!fetcher) {
      ReactDOM.unmountComponentAtNode(root);
      root.textContent = "No organization to run queries as: paste an API key above.";
      return;
    }
    ReactDOM.render(
      React.createElement(GraphiQL, {
        fetcher: fetcher,
        defaultQuery: config.defaultQuery,
        isHeadersEditorEnabled: true,
      }),
      root,
    );
  }

  keyInput.value = sessionStorage.getItem(STORAGE) || "";
  keyInput.addEventListener("change", show);
  keyInput.addEventListener("keydown", function (event) {
    if (event.key === "Enter") show();
  });
  orgSelect.addEventListener("change", show);
  root.textContent = "";
  show();
})();
