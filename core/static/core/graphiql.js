// GraphiQL at GET /graphql: queries go to POST /graphql with the API key typed into the bar
// (HTTP Basic, the key as user name), exactly as a client sends them; never with cookies.
// A new key gives GraphiQL a new fetcher, so it loads the schema again with that key.
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("graphiql-config").textContent);
  const keyInput = document.getElementById("gq-api-key");
  const keyState = document.getElementById("gq-key-state");
  const root = document.getElementById("graphiql");
  const STORAGE = "graphiql.apiKey";

  function fetcherFor(key) {
    return async function fetcher(params, options) {
      const headers = { "Content-Type": "application/json", Accept: "application/json" };
      if (key) headers.Authorization = "Basic " + btoa(key + ":");
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

  let shownKey = null;
  function show() {
    const key = keyInput.value.trim();
    keyState.textContent = key ? "" : "Paste an API key to run queries.";
    if (key === shownKey) return;
    shownKey = key;
    sessionStorage.setItem(STORAGE, key);
    ReactDOM.render(
      React.createElement(GraphiQL, {
        fetcher: fetcherFor(key),
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
  root.textContent = "";
  show();
})();
