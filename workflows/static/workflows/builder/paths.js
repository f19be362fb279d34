// Values at dotted paths of a JSON object ("validation.max"), as the catalogue names them.

// A value at a dotted path of a JSON object ("validation.max"); undefined when absent.
export function getPath(data, path) {
  return path.split(".").reduce((at, part) => (at == null ? undefined : at[part]), data);
}

// Sets (or, with undefined, removes) the value at a dotted path, dropping emptied objects.
export function setPath(data, path, value) {
  const parts = path.split(".");
  const last = parts.pop();
  let at = data;
  const trail = [];
  for (const part of parts) {
    if (at[part] == null || typeof at[part] !== "object") {
      if (value === undefined) return;
      at[part] = {};
    }
    trail.push([at, part]);
    at = at[part];
  }
  if (value === undefined) delete at[last];
  else at[last] = value;
  for (const [parent, part] of trail.reverse()) {
    if (Object.keys(parent[part]).length === 0) delete parent[part];
  }
}
