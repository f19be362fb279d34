// The rules of a webform value (workflows/engine/rules.py), as the browser applies them: the same
// checks, patterns, limits and messages (in the reader's language), given by the server in the
// page (its "wf-rules" data). The server checks again whatever this module says.
import { conditionRules, numberOf } from "./condition_rules.js";
import { readConfig } from "./embed.js";

export { conditionRules, numberOf } from "./condition_rules.js";

export const rules = readConfig("wf-rules");
export const M = rules.messages;
const PATTERNS = Object.fromEntries(
  Object.entries(rules.patterns).map(([name, source]) => [name, new RegExp(source)]),
);
export const PARTS = {
  fullName: ["firstName", "mi", "lastName"],
  usAddress: ["street1", "street2", "city", "state", "zip", "country"],
  phone: ["num", "region"],
};

class Invalid extends Error {
  constructor(key, values = {}) {
    super(M[key].replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? "")));
  }
}

export const length = (value) => [...value].length; // code points, as Python counts them

export function isEmpty(raw) {
  if (raw === null || raw === undefined) return true;
  if (typeof raw === "string") return raw.trim() === "";
  if (typeof raw === "object") {
    return Object.entries(raw).every(([k, v]) => k === "region" || k === "baseRegion" || isEmpty(v));
  }
  return false;
}

function text(raw, limit = rules.limits.text) {
  if (typeof raw !== "string") throw new Invalid("text");
  if (length(raw) > limit) throw new Invalid("tooLong", { max: limit });
  return raw.trim();
}

function nineDigits(raw, kind) {
  const digits = text(raw, 50).replace(/[\s-]/g, "");
  if (!/^\d{9}$/.test(digits)) throw new Invalid(kind);
  return digits;
}

// Numbers as the page's reader writes them ("15,5" on a Spanish page): the separators of the
// page's language come from the server (rules.numberFormat), as workflows/engine/numbers.py
// reads them; a number written so becomes the canonical "15.5", anything else is left as typed.
const SPACES = " \u00a0\u202f";
const ARABIC_DIGITS = "٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹٫٬";
const LATIN_DIGITS = "01234567890123456789.,";
const escape = (source) => source.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");

export function canonicalNumber(written, format = rules.numberFormat) {
  const value = [...written.trim()]
    .map((c) => (ARABIC_DIGITS.includes(c) ? LATIN_DIGITS[ARABIC_DIGITS.indexOf(c)] : c))
    .join("");
  if (!format || (format.decimal === "." && format.group === ",")) return value;
  const group = format.group === " " ? `[${SPACES}]` : escape(format.group);
  const pattern = new RegExp(
    `^([-+]?)(\\d{1,3}(?:${group}\\d{3})+|\\d+)?(?:${escape(format.decimal)}(\\d+))?$`,
  );
  const match = pattern.exec(value);
  if (!match || !/\d/.test(value)) return value;
  const [, sign, whole, fraction] = match;
  const digits = (whole ?? "").replace(/\D/g, "") || "0";
  return fraction ? `${sign}${digits}.${fraction}` : `${sign}${digits}`;
}

function number(raw, kind) {
  let value = text(raw, 100);
  if (kind === "dollar" && value.startsWith("$")) value = value.slice(1).trim();
  if (kind === "percent" && value.endsWith("%")) value = value.slice(0, -1).trim();
  value = canonicalNumber(value);
  if (!PATTERNS.number.test(value) || !/\d/.test(value)) throw new Invalid("number");
  const parsed = Number(value.replace(/,/g, ""));
  if (!Number.isFinite(parsed)) throw new Invalid("number");
  if (Math.abs(parsed) >= rules.limits.numberLimit) throw new Invalid("numberTooLarge");
  return parsed;
}

function parts(raw, names) {
  const out = {};
  for (const name of names) {
    const value = (raw[name] ?? "").trim();
    if (length(value) > rules.limits.part) throw new Invalid("part");
    if (value) out[name] = value;
  }
  return out;
}

export function nationalNumber(num, region) {
  const info = rules.phoneRegions[region];
  let digits = num.replace(/[\s().\-/]/g, "");
  const code = String(info.code);
  if (digits.startsWith("+")) {
    if (!digits.startsWith("+" + code)) return null;
    digits = digits.slice(1 + code.length);
  } else if (info.prefix && digits.startsWith(info.prefix)) {
    digits = digits.slice(info.prefix.length);
  }
  if (!/^\d+$/.test(digits) || !info.lengths.includes(digits.length)) return null;
  return digits;
}

const CHECKS = {
  text(field, raw) {
    const value = text(raw);
    if (field.validation?.maxLength != null && length(value) > field.validation.maxLength) {
      throw new Invalid("tooLong", { max: field.validation.maxLength });
    }
    if (field.validation?.minLength != null && length(value) < field.validation.minLength) {
      throw new Invalid("tooShort", { min: field.validation.minLength });
    }
  },
  email(field, raw) {
    if (!PATTERNS.email.test(text(raw, 254))) throw new Invalid("email");
  },
  ssn(field, raw) {
    const d = nineDigits(raw, "ssn");
    if (["000", "666"].includes(d.slice(0, 3)) || d[0] === "9" || d.slice(3, 5) === "00" || d.slice(5) === "0000") {
      throw new Invalid("ssnInvalid");
    }
  },
  ein(field, raw) {
    if (nineDigits(raw, "ein").slice(0, 2) === "00") throw new Invalid("einInvalid");
  },
  date(field, raw) {
    const match = PATTERNS.date.exec(text(raw, 50));
    if (!match) throw new Invalid("date");
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const date = new Date(Date.UTC(2000, month - 1, day));
    date.setUTCFullYear(year);
    if (year < 1 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
      throw new Invalid("dateInvalid");
    }
  },
  number(field, raw) {
    const value = number(raw, field.type);
    if (field.type === "integer" && !Number.isInteger(value)) throw new Invalid("integer");
    if (field.type === "percent" && !(value >= 0 && value <= 100)) throw new Invalid("percent");
    const { min, max } = field.validation || {};
    if (min != null && value < min) throw new Invalid("min", { min });
    if (max != null && value > max) throw new Invalid("max", { max });
  },
  radioGroup(field, raw) {
    if (!(field.options || []).some((o) => o.value === text(raw, 200))) throw new Invalid("option");
  },
  fullName(field, raw) {
    const p = parts(raw, PARTS.fullName);
    if (length(p.mi || "") > 5) throw new Invalid("middleInitial");
    if (field.required && !(p.firstName && p.lastName)) throw new Invalid("name");
  },
  usAddress(field, raw) {
    const p = parts(raw, PARTS.usAddress);
    if (!(p.street1 && p.city && p.state && p.zip)) throw new Invalid("address");
    if (!rules.usStates.includes(p.state.toUpperCase())) throw new Invalid("state");
    if (!PATTERNS.zip.test(p.zip)) throw new Invalid("zip");
  },
  phone(field, raw) {
    const region = (raw.region || field.baseRegion || "US").toUpperCase();
    const info = rules.phoneRegions[region];
    if (!info) throw new Invalid("phoneRegion");
    const num = (raw.num || "").trim();
    if (length(num) > 40 || nationalNumber(num, region) === null) {
      throw new Invalid("phone", { region: info.name });
    }
  },
};
for (const kind of ["shortText", "longText", "charList", "textWrap"]) CHECKS[kind] = CHECKS.text;
for (const kind of ["dollar", "integer", "percent"]) CHECKS[kind] = CHECKS.number;

// The message for ``raw``, or "" when it passes (workflows.engine.rules.check_value).
export function check(field, raw, enforceRequired = true) {
  const required = field.required && enforceRequired;
  try {
    if (field.type === "checkbox") {
      if (required && raw !== true) throw new Invalid("checkboxRequired");
      return "";
    }
    if (field.type === "imageFile") return raw; // checked when the file is chosen, below
    if (isEmpty(raw)) {
      if (required) throw new Invalid("required");
      return "";
    }
    CHECKS[field.type](field, raw);
    return "";
  } catch (error) {
    if (error instanceof Invalid) return error.message;
    throw error;
  }
}

// Whether a value counts as given for a showWhen (workflows.engine.rules.has_value).
export function hasValue(raw) {
  return raw !== false && !isEmpty(raw);
}

// Conditions beyond "has a value" (workflows.engine.conditions, whose docstring says the
// format and how each rule reads a value; tests hold the two to the same table). ``read(key)``
// gives a field's value; for "<group>.<field>" the list of that field's values, one an entry.
const COMPARE = {
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
};

export function same(value, expected) {
  if (typeof expected === "boolean") {
    return value === expected || (typeof value === "string" && value.trim() === String(expected));
  }
  if (typeof expected === "number") {
    const given = numberOf(value);
    return given !== null && given === expected;
  }
  if (typeof value === "string") return value.trim() === expected.trim();
  if (typeof value !== "number") return false;
  return numberOf(expected) === value;
}

function valueHolds(rule, value) {
  if (rule.op === "hasValue") return hasValue(value);
  if (!hasValue(value) && value !== false) return false;
  if (rule.op === "equals") return same(value, rule.value);
  if (rule.op === "notEquals") return !same(value, rule.value);
  if (rule.op === "oneOf") return rule.value.some((choice) => same(value, choice));
  const given = numberOf(value);
  return given !== null && COMPARE[rule.op](given, rule.value);
}

export function conditionHolds(condition, read) {
  const { match, listedRules } = conditionRules(condition);
  const holds = (rule) => {
    if (!rule.field.includes(".")) return valueHolds(rule, read(rule.field));
    const values = read(rule.field);
    return Array.isArray(values) && values.some((value) => valueHolds(rule, value));
  };
  return match === "any" ? listedRules.some(holds) : listedRules.every(holds);
}

// Whether ``field`` is shown: its showWhen field (before it on this page, or on an earlier
// page: ``rules.earlier``) has a value (workflows.engine.resolve.check_fields). A hidden field
// is not checked, and the server drops its value.
// The parts of a name, address or phone a message is about (workflows.engine.rules.invalid_parts):
// an optional middle initial or apartment is never marked unless it is what is wrong.
export function invalidParts(field, raw, message) {
  const names = PARTS[field.type];
  if (!names || !message) return [];
  const given = raw && typeof raw === "object" ? raw : {};
  const blank = (part) => !String(given[part] ?? "").trim();
  if (message === M.part) return names.filter((p) => length(String(given[p] ?? "").trim()) > rules.limits.part);
  let needed;
  if (field.type === "fullName") {
    if (message === M.middleInitial) return ["mi"];
    needed = ["firstName", "lastName"];
  } else if (field.type === "usAddress") {
    if (message === M.state) return ["state"];
    if (message === M.zip) return ["zip"];
    needed = ["street1", "city", "state", "zip"];
  } else {
    return message === M.phoneRegion ? ["region"] : ["num"];
  }
  const missing = needed.filter(blank);
  return missing.length ? missing : needed;
}
