// A webform page: the server's checks (workflows/engine/rules.py), applied in the browser with
// the same rules and messages before the page is sent, and the page's events for an embedding
// page (embed.js). The server checks again whatever this script says; without the script the
// page still works, one round trip per check.
import { postEvents, readConfig } from "./embed.js";

const rules = readConfig("wf-rules");
const config = readConfig("wf-config");
const form = document.getElementById("wf-form");
const summary = document.getElementById("wf-summary");
const M = rules.messages;
const PATTERNS = Object.fromEntries(
  Object.entries(rules.patterns).map(([name, source]) => [name, new RegExp(source)]),
);
const PARTS = {
  fullName: ["firstName", "mi", "lastName"],
  usAddress: ["street1", "street2", "city", "state", "zip", "country"],
  phone: ["num", "region"],
};

class Invalid extends Error {
  constructor(key, values = {}) {
    super(M[key].replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? "")));
  }
}

const length = (text) => [...text].length; // code points, as Python counts them

function isEmpty(raw) {
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

function number(raw, kind) {
  let value = text(raw, 100);
  if (kind === "dollar" && value.startsWith("$")) value = value.slice(1).trim();
  if (kind === "percent" && value.endsWith("%")) value = value.slice(0, -1).trim();
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

// --- the page ---------------------------------------------------------------------------------

const input = (name) => form.elements.namedItem(name);

function rawValue(field) {
  if (field.type === "checkbox") return Boolean(input(field.key)?.checked);
  if (field.type === "imageFile") return imageMessage(field);
  const names = PARTS[field.type];
  if (!names) {
    const element = input(field.key);
    if (element instanceof RadioNodeList) return element.value || null;
    return element ? element.value : null;
  }
  const raw = {};
  for (const name of names) raw[name] = input(`${field.key}.${name}`)?.value ?? "";
  return raw;
}

function imageMessage(field) {
  const file = input(`${field.key}.file`)?.files?.[0];
  if (!file) {
    const kept = input(field.key)?.value;
    return field.required && !kept ? M.required : "";
  }
  const ok = rules.limits.imageTypes.includes(file.type) && file.size > 0 && file.size <= rules.limits.imageBytes;
  return ok ? "" : M.image;
}

function container(field) {
  return form.querySelector(`.wf-field[data-key="${CSS.escape(field.key)}"]`);
}

function show(field, message) {
  const box = container(field);
  const error = document.getElementById(`f-${field.key}-error`);
  box.classList.toggle("has-error", Boolean(message));
  error.textContent = message;
  error.hidden = !message;
  for (const element of box.querySelectorAll("input:not([type=hidden]), select, textarea")) {
    if (message) element.setAttribute("aria-invalid", "true");
    else element.removeAttribute("aria-invalid");
  }
}

function showSummary(failures) {
  summary.replaceChildren();
  if (!failures.length) {
    summary.hidden = true;
    return;
  }
  const title = document.createElement("h2");
  title.className = "wf-summary-title";
  title.textContent = failures.length === 1 ? "There is a problem" : `There are ${failures.length} problems`;
  const list = document.createElement("ul");
  for (const [field, message] of failures) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = `#f-${field.key}`;
    link.textContent = `${field.label}: ${message}`;
    item.append(link);
    list.append(item);
  }
  summary.append(title, list);
  summary.hidden = false;
  summary.focus();
}

// Messages appear when the page is sent (never while someone moves between fields, which would
// shift the page under the pointer), then follow the value as it is corrected.
const touched = new Set();
let sending = false;

function recheck(field) {
  if (touched.has(field.key)) show(field, check(field, rawValue(field)));
}

if (form) {
  for (const field of rules.fields) {
    const box = container(field);
    if (!box) continue;
    if (box.classList.contains("has-error")) touched.add(field.key); // refused by the server
    box.addEventListener("input", () => recheck(field));
    box.addEventListener("change", (event) => {
      if (event.target.matches("select, input[type=checkbox], input[type=radio], input[type=file]")) {
        recheck(field);
      }
    });
  }
  form.addEventListener("submit", (event) => {
    if (sending) {
      event.preventDefault();
      return;
    }
    const back = event.submitter?.value === "back";
    const failures = [];
    for (const field of rules.fields) {
      const message = check(field, rawValue(field), !back);
      touched.add(field.key);
      show(field, message);
      if (message) failures.push([field, message]);
    }
    if (failures.length) {
      event.preventDefault();
      showSummary(failures);
      return;
    }
    sending = true;
    form.dataset.state = "sending";
  });
  form.dataset.state = "ready";
  if (!summary.hidden) summary.focus();
}

document.body.dataset.posted = String(postEvents(config.events, config.origins));
if (config.continueUrl) {
  try {
    history.replaceState(null, "", config.continueUrl);
  } catch {
    // another origin than the page's: the address stays as it is
  }
}
