// The fields drawn over the pages: one element per field at its true place on its page (its
// colour by category, its name, its boxes, options or parts), marked when selected or refused by
// the last save, with resize handles on the single selected field. Only fields whose drawing
// changed are drawn again.

import { h } from "#common/dom.js";
import { rectToBox } from "#common/page-box.js";
import { categoryOf, subLabel, subRects, typeLabel } from "./fields.js";
import { boxStyle } from "./geometry.js";

const HANDLES = ["nw", "n", "ne", "e", "se", "s", "sw", "w"];

export function drawOverlays(view, force = false) {
  const { state } = view;
  const single = state.selection.size === 1;
  const errors = new Set(state.problems.map((p) => p.fieldId).filter(Boolean));
  const arrayLabels = new Map();
  for (const array of state.arrays) {
    array.fieldIds.forEach((id, row) =>
      arrayLabels.set(id, `${array.alias || array.id}[${row}]`),
    );
  }
  const seen = new Set();
  for (const field of state.fields) {
    const p = view.pages[field.page || 0];
    if (!p) continue;
    seen.add(field.id);
    const selected = state.selection.has(field.id);
    const flags = {
      selected,
      single: selected && single,
      handles: selected && single && !state.sub,
      sub: selected && single ? state.sub : null,
      error: errors.has(field.id),
      arrayLabel: arrayLabels.get(field.id) || null,
    };
    const signature = JSON.stringify([field, flags, view.zoom]);
    let el = p.fieldEls.get(field.id);
    if (el && el.parentNode !== p.overlay) {
      el.remove();
      el = null;
    }
    if (!el) {
      el = h("div", { class: "ed-field", dataset: { fieldId: field.id } });
      p.fieldEls.set(field.id, el);
      p.overlay.append(el);
    } else if (!force && el.dataset.signature === signature) {
      continue;
    }
    el.dataset.signature = signature;
    drawField(el, p, field, flags);
  }
  for (const p of view.pages) {
    for (const [id, el] of p.fieldEls) {
      const field = state.field(id);
      if (!seen.has(id) || (field.page || 0) !== p.index) {
        el.remove();
        p.fieldEls.delete(id);
      }
    }
  }
}

function drawField(el, p, field, flags) {
  const box = rectToBox(p.viewport, field.rect);
  el.className = [
    "ed-field",
    `cat-${categoryOf(field.type)}`,
    flags.selected && "is-selected",
    flags.error && "is-error",
    flags.arrayLabel && "in-array",
    box.height < 15 && "is-small",
  ]
    .filter(Boolean)
    .join(" ");
  Object.assign(el.style, boxStyle(box));
  const name = flags.arrayLabel || field.alias || field.id;
  el.title = `${name} · ${typeLabel(field.type)}`;
  el.replaceChildren();
  const subs = subRects(field);
  if ((!subs.length || field.type === "textWrap") && box.width >= 28) {
    el.append(h("span", { class: "ed-field-name" }, name));
  }
  for (const [kind, key, rect] of subs) {
    const sub = rectToBox(p.viewport, rect);
    const isSelected =
      flags.sub && flags.sub.kind === kind && String(flags.sub.key) === String(key);
    const subEl = h(
      "div",
      {
        class: `ed-sub ed-sub-${kind}${isSelected ? " is-selected" : ""}`,
        dataset: { kind, key },
        // Placed within the field's element.
        style: boxStyle({ ...sub, left: sub.left - box.left, top: sub.top - box.top }),
      },
      flags.selected && h("span", { class: "ed-sub-name" }, subLabel(field, kind, key)),
    );
    if (isSelected) subEl.append(...handlesFor(sub));
    el.append(subEl);
  }
  if (flags.single) {
    el.append(h("div", { class: "ed-field-flag" }, h("b", {}, name), " ", typeLabel(field.type)));
  }
  if (flags.handles) el.append(...handlesFor(box));
}

// Resize handles for a box on screen: corners always, edge middles only where there is room.
function handlesFor(box) {
  return HANDLES.filter((handle) => {
    if (handle === "n" || handle === "s") return box.width >= 30;
    if (handle === "e" || handle === "w") return box.height >= 30;
    return true;
  }).map((handle) => h("div", { class: "ed-handle", dataset: { handle } }));
}
