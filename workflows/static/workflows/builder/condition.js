// The builder's editor of a condition (``showWhen``, docs/workflows.md, "Conditions"): rules,
// each an earlier field, a test and a value, which all or any must hold. The first rule's field
// is the setting's select ("Always show it" removes the condition); "Add a rule" adds one.

import { clear, h } from "#common/dom.js";
import { conditionRules, numberOf } from "../condition_rules.js";

export const TESTS = [
  ["hasValue", "has a value"],
  ["equals", "is"],
  ["notEquals", "is not"],
  ["oneOf", "is one of (comma between)"],
  ["lt", "is less than"],
  ["lte", "is at most"],
  ["gt", "is more than"],
  ["gte", "is at least"],
];
const NUMBERS = new Set(["number", "integer", "dollar", "percent"]);
const COMPARISONS = new Set(["lt", "lte", "gt", "gte"]);
const PICKED = new Set(["equals", "notEquals"]); // tests whose value is one of a field's options

// A typed value as the condition's JSON wants it: a number field's as a number, a checkbox's as
// true or false, others as text. A comparison takes a number (what is not one the save refuses).
function typed(text, type, op) {
  const trimmed = text.trim();
  const number = numberOf(trimmed);
  if (COMPARISONS.has(op) || NUMBERS.has(type)) return number ?? trimmed;
  if (type === "checkbox") return trimmed === "true";
  return trimmed;
}

function valueText(rule) {
  if (rule.op === "hasValue" || rule.value === undefined) return "";
  return Array.isArray(rule.value) ? rule.value.join(", ") : String(rule.value);
}

export function conditionJSON(rows, match, typeOf) {
  const rules = rows.map((row) => {
    const type = typeOf(row.field);
    let value = true;
    if (row.op === "oneOf") value = row.text.split(",").filter((part) => part.trim()).map((part) => typed(part, type, "equals"));
    else if (row.op !== "hasValue") value = typed(row.text, type, row.op);
    return { field: row.field, [row.op]: value };
  });
  if (!rules.length) return undefined;
  return rules.length === 1 ? rules[0] : { [match]: rules };
}

export function conditionEditor({ id, earlier, value, set, label, help, error }) {
  const parsed = value ? conditionRules(value) : { match: "all", listedRules: [] };
  let match = parsed.match;
  const rows = parsed.listedRules.map((rule) => ({ field: rule.field, op: rule.op, text: valueText(rule) }));
  const typeOf = (key) => earlier.find((f) => f.data.key === key)?.data.type;
  const optionsOf = (key) => (earlier.find((f) => f.data.key === key)?.data.options || []).filter((o) => o.value);
  const emit = () => set(conditionJSON(rows, match, typeOf));
  const box = h("div", { class: "wfb-condition" });
  const fieldOptions = (current, always) => [
    always ? h("option", { value: "" }, "Always show it") : null,
    earlier.map((f) =>
      h("option", { value: f.data.key, selected: f.data.key === current }, `${f.data.label || f.data.key} (${f.data.key})`),
    ),
    current && !earlier.some((f) => f.data.key === current)
      ? h("option", { value: current, selected: true }, `${current} (not an earlier field)`)
      : null,
  ].flat();

  const describedBy = [help ? `${id}-help` : null, `${id}-error`].filter(Boolean).join(" ");
  // The first rule's field is one select for good (typing a field's name in it picks it, which
  // a select drawn again would break); the rest is drawn again as rules come and go.
  const first = h(
    "select",
    {
      id,
      class: "wfb-input",
      dataset: { path: "showWhen" },
      "aria-describedby": describedBy,
      onchange: () => {
        if (!first.value) rows.splice(0);
        else if (!rows.length) rows.push({ field: first.value, op: "hasValue", text: "" });
        else rows[0].field = first.value;
        if (rows.length) pickFirst(rows[0]);
        emit();
        draw(null);
      },
    },
    fieldOptions(rows[0]?.field || "", true),
  );
  const matchHolder = h("div");
  const firstExtras = h("div", { class: "wfb-rule-parts" });
  const rest = h("div");
  const adding = h("div");
  box.append(matchHolder, h("div", { class: "wfb-rule", dataset: { rule: "1" } }, first, firstExtras), rest, adding);

  // The value of a rule: "is" / "is not" on a field with options (a radio group) picks one of
  // them (a value no option has would never hold, and the save refuses it); else typed text.
  function valueControl(row, number) {
    const options = optionsOf(row.field);
    const common = {
      id: `${id}-value-${number}`,
      class: "wfb-input",
      dataset: { rule: String(number), part: "value" },
      "aria-label": `Value of rule ${number}`,
    };
    if (options.length && PICKED.has(row.op)) {
      const known = options.some((o) => o.value === row.text.trim());
      const picker = h(
        "select",
        {
          ...common,
          onchange: () => {
            row.text = picker.value;
            emit();
          },
        },
        known
          ? null
          : h("option", { value: row.text, selected: true }, row.text.trim() ? `${row.text} (not an option)` : "Choose an option"),
        options.map((o) =>
          h(
            "option",
            { value: o.value, selected: o.value === row.text.trim() },
            o.label && o.label !== o.value ? `${o.label} (${o.value})` : o.value,
          ),
        ),
      );
      return picker;
    }
    const given = h("input", {
      ...common,
      type: "text",
      value: row.text,
      hidden: row.op === "hasValue",
      oninput: () => {
        row.text = given.value;
        emit();
      },
    });
    return given;
  }

  // A rule just turned to "is" / "is not" on a field with options: its first option, unless it
  // has a value one of them has already.
  function pickFirst(row) {
    const options = optionsOf(row.field);
    if (options.length && PICKED.has(row.op) && !options.some((o) => o.value === row.text.trim()))
      row.text = options[0].value;
  }

  // A select of rule ``number`` (its field or its test): a change sets it on the rule, picks
  // the first option where one fits, and draws the rules again with the focus back on it.
  function ruleSelect(row, number, part, name, choices, assign) {
    const selectId = `${id}-${part}-${number}`;
    const select = h(
      "select",
      {
        id: selectId,
        class: "wfb-input",
        dataset: { rule: String(number), part },
        "aria-label": `${name} of rule ${number}`,
        onchange: () => {
          assign(select.value);
          pickFirst(row);
          emit();
          draw(selectId);
        },
      },
      choices,
    );
    return select;
  }

  function parts(row, n) {
    const number = n + 1;
    const given = valueControl(row, number);
    const test = ruleSelect(
      row,
      number,
      "test",
      "Test",
      TESTS.map(([op, words]) => h("option", { value: op, selected: op === row.op }, words)),
      (chosen) => (row.op = chosen),
    );
    const remove =
      rows.length > 1
        ? h(
            "button",
            {
              type: "button",
              class: "wfb-btn wfb-btn-small",
              id: `${id}-remove-${number}`,
              dataset: { rule: String(number), part: "remove" },
              onclick: () => {
                rows.splice(n, 1);
                if (n === 0) first.value = rows[0].field;
                emit();
                draw(`${id}-add`);
              },
            },
            `Remove rule ${number}`,
          )
        : null;
    return [test, given, remove];
  }

  function draw(focus) {
    clear(matchHolder);
    clear(firstExtras);
    clear(rest);
    clear(adding);
    if (rows.length) firstExtras.append(...parts(rows[0], 0).filter(Boolean));
    rows.slice(1).forEach((row, m) => {
      const n = m + 1;
      const number = n + 1;
      const field = ruleSelect(
        row,
        number,
        "field",
        "Field",
        fieldOptions(row.field, false),
        (chosen) => (row.field = chosen),
      );
      rest.append(h("div", { class: "wfb-rule", dataset: { rule: String(number) } }, field, ...parts(row, n).filter(Boolean)));
    });
    if (rows.length > 1) {
      const which = h(
        "select",
        {
          id: `${id}-match`,
          class: "wfb-input",
          "aria-label": "Which rules must hold",
          onchange: () => {
            match = which.value;
            emit();
          },
        },
        h("option", { value: "all", selected: match === "all" }, "All of the rules"),
        h("option", { value: "any", selected: match === "any" }, "Any of the rules"),
      );
      matchHolder.append(which);
    }
    if (rows.length && earlier.length) {
      adding.append(
        h(
          "button",
          {
            type: "button",
            class: "wfb-btn wfb-btn-small",
            id: `${id}-add`,
            onclick: () => {
              rows.push({ field: earlier[0].data.key, op: "hasValue", text: "" });
              emit();
              draw(`${id}-field-${rows.length}`);
            },
          },
          "Add a rule",
        ),
      );
    }
    if (focus) document.getElementById(focus)?.focus();
  }
  draw(null);
  return h(
    "div",
    { class: `wfb-setting${error ? " has-error" : ""}` },
    h("label", { for: id, class: "wfb-label" }, label),
    box,
    help ? h("p", { class: "wfb-help", id: `${id}-help` }, help) : null,
    h("p", { class: "wfb-error", id: `${id}-error`, hidden: !error }, error || ""),
  );
}
