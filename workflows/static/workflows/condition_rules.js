// The shape of a condition's JSON (workflows.engine.conditions), read by the page's checks
// (checks.js) and by the builder (builder/condition.js), which has no page rules to load.

// The rules of a condition's JSON (listedRules: [{field, op, value}]), and whether all or any must
// hold (match).
export function conditionRules(condition) {
  const match = "any" in condition ? "any" : "all";
  const listed = condition.all || condition.any || [condition];
  const listedRules = listed.map((rule) => {
    const op = Object.keys(rule).find((name) => name !== "field");
    return { field: rule.field, op, value: rule[op] };
  });
  return { match, listedRules };
}

// A value as a number: a number, or a text that reads as one once "$", "%", commas and spaces
// are taken out; null otherwise (workflows.engine.conditions.number_of).
export function numberOf(value) {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string") return null;
  const digits = value.replace(/[\s,$%]/g, "");
  return /^-?(\d+\.?\d*|\.\d+)$/.test(digits) ? Number(digits) : null;
}
