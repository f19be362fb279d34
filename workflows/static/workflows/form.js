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
  const ok = rules.limits.imageTypes.includes(file.type) && file.size > 0 && file.size <= rules.limits.imageUploadBytes;
  return ok ? "" : M.image;
}

// A phone's photo is made small enough before it is sent, where the browser can (the server
// does the same for every other one: workflows/engine/photos.py).
const SIDES = [1600, 1280, 1024, 800, 640, 480, 360, 240];
const QUALITIES = [0.82, 0.7, 0.58];
let scaling = 0;

async function smaller(file) {
  const bitmap = await createImageBitmap(file); // turned upright by its EXIF orientation
  const canvas = document.createElement("canvas");
  for (const side of SIDES) {
    const scale = Math.min(1, side / Math.max(bitmap.width, bitmap.height));
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    const context = canvas.getContext("2d");
    context.fillStyle = "#fff";
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    for (const quality of QUALITIES) {
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", quality));
      if (blob && blob.size <= rules.limits.imageBytes) {
        const name = file.name.replace(/\.[^.]*$/, "") + ".jpg";
        return new File([blob], name, { type: "image/jpeg" });
      }
    }
  }
  return null;
}

async function fitChosen(field) {
  const element = input(`${field.key}.file`);
  const file = element?.files?.[0];
  const note = document.getElementById(`f-${field.key}-note`);
  if (!file || file.size <= rules.limits.imageBytes || imageMessage(field)) return;
  if (typeof createImageBitmap !== "function" || typeof DataTransfer !== "function") return;
  scaling += 1;
  form.dataset.state = "scaling";
  try {
    const fitted = await smaller(file);
    if (fitted) {
      const transfer = new DataTransfer();
      transfer.items.add(fitted);
      element.files = transfer.files;
      if (note) {
        note.textContent = `Made smaller to send: ${Math.round(file.size / 1024)} KB to ${Math.round(fitted.size / 1024)} KB.`;
        note.hidden = false;
      }
    }
  } catch {
    // not an image this browser can draw: sent as it is, and the server says what it is
  } finally {
    scaling -= 1;
    if (!scaling) form.dataset.state = "ready";
  }
}

// Whether a value counts as given for a showWhen (workflows.engine.rules.has_value).
export function hasValue(raw) {
  return raw !== false && !isEmpty(raw);
}

// Whether ``field`` is shown: its showWhen field (before it on this page, or on an earlier
// page: ``rules.earlier``) has a value (workflows.engine.resolve.check_fields). A hidden field
// is not checked, and the server drops its value.
export function isShown(field, fields = rules.fields, earlier = rules.earlier, read = givenValue) {
  const key = field.showWhen?.field;
  if (!key) return true;
  const source = fields.find((f) => f.key === key);
  if (!source) return Boolean(earlier?.[key]);
  return isShown(source, fields, earlier, read) && hasValue(read(source));
}

// The value a showWhen looks at: an image field's is its file (chosen now, or kept).
function givenValue(field) {
  if (field.type !== "imageFile") return rawValue(field);
  return input(`${field.key}.file`)?.files?.length ? "file" : input(field.key)?.value || null;
}

function showConditional() {
  for (const field of rules.fields) {
    const box = container(field);
    if (box && field.showWhen) box.hidden = !isShown(field);
  }
}

function container(field) {
  return form.querySelector(`.wf-field[data-key="${CSS.escape(field.key)}"]`);
}

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

function show(field, message) {
  const box = container(field);
  const error = document.getElementById(`f-${field.key}-error`);
  box.classList.toggle("has-error", Boolean(message));
  error.textContent = message;
  error.hidden = !message;
  const names = PARTS[field.type];
  const marked = names ? new Set(invalidParts(field, rawValue(field), message).map((p) => `${field.key}.${p}`)) : null;
  for (const element of box.querySelectorAll("input:not([type=hidden]), select, textarea")) {
    const invalid = Boolean(message) && (!marked || marked.has(element.name));
    if (invalid) element.setAttribute("aria-invalid", "true");
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
    box.addEventListener("input", () => {
      recheck(field);
      showConditional();
    });
    box.addEventListener("change", (event) => {
      if (event.target.matches("input[type=file]")) fitChosen(field);
      if (event.target.matches("select, input[type=checkbox], input[type=radio], input[type=file]")) {
        recheck(field);
      }
      showConditional();
    });
  }
  form.addEventListener("submit", (event) => {
    if (sending) {
      event.preventDefault();
      return;
    }
    if (scaling) {
      // A photo is being made smaller: the page is sent once it is.
      event.preventDefault();
      const submitter = event.submitter;
      const wait = setInterval(() => {
        if (scaling) return;
        clearInterval(wait);
        form.requestSubmit(submitter);
      }, 50);
      return;
    }
    if (event.submitter?.value === "back") {
      // Back never blocks: what is typed is sent as it is, kept, and checked on the way forward.
      sending = true;
      form.dataset.state = "sending";
      return;
    }
    const failures = [];
    for (const field of rules.fields) {
      if (!isShown(field)) continue; // hidden: not required, dropped by the server
      const message = check(field, rawValue(field));
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
  showConditional();
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
