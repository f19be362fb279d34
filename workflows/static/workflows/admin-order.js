// Ordered inlines of the workflow admin: drag a row by its handle, or move it with its Up and
// Down buttons (keyboard users), then Save. The hidden "position" inputs are numbered in the
// order the rows show when the form is sent. Rows not yet filled in are left alone, so an
// empty extra row does not count as a change.
"use strict";
(function () {
  function rows(table) {
    return Array.from(table.querySelectorAll("tbody tr.form-row")).filter(
      (row) => !row.classList.contains("empty-form"),
    );
  }

  function filledIn(row) {
    if (row.classList.contains("has_original")) return true;
    return Array.from(row.querySelectorAll("input[type=text], textarea, select")).some(
      (input) => input.value && input.value !== input.defaultValue,
    );
  }

  function number(table) {
    let position = 0;
    for (const row of rows(table)) {
      const input = row.querySelector("input[name$='-position']");
      if (input && filledIn(row)) input.value = String(position++);
    }
  }

  function decorate(table, row) {
    if (row.querySelector(".wf-order")) return;
    const cell = document.createElement("td");
    cell.className = "wf-order";
    const handle = document.createElement("span");
    handle.className = "wf-handle";
    handle.textContent = "↕";
    handle.title = "Drag to reorder";
    handle.setAttribute("aria-hidden", "true");
    const up = document.createElement("button");
    up.type = "button";
    up.className = "button wf-move";
    up.textContent = "↑";
    up.setAttribute("aria-label", "Move up");
    const down = up.cloneNode();
    down.textContent = "↓";
    down.setAttribute("aria-label", "Move down");
    up.addEventListener("click", () => {
      const previous = row.previousElementSibling;
      if (previous && previous.classList.contains("form-row")) previous.before(row);
      number(table);
      up.focus();
    });
    down.addEventListener("click", () => {
      const next = row.nextElementSibling;
      if (next && next.classList.contains("form-row") && !next.classList.contains("empty-form")) next.after(row);
      number(table);
      down.focus();
    });
    cell.append(handle, up, down);
    row.prepend(cell);
    row.draggable = true;
    row.addEventListener("dragstart", (event) => {
      table._dragged = row;
      row.classList.add("wf-dragging");
      event.dataTransfer.effectAllowed = "move";
    });
    row.addEventListener("dragend", () => {
      row.classList.remove("wf-dragging");
      table.querySelectorAll(".wf-drop-before").forEach((r) => r.classList.remove("wf-drop-before"));
      number(table);
    });
    row.addEventListener("dragover", (event) => {
      if (!table._dragged || table._dragged === row) return;
      event.preventDefault();
      table.querySelectorAll(".wf-drop-before").forEach((r) => r.classList.remove("wf-drop-before"));
      row.classList.add("wf-drop-before");
    });
    row.addEventListener("drop", (event) => {
      event.preventDefault();
      if (table._dragged && table._dragged !== row) row.before(table._dragged);
    });
  }

  function setUp(group) {
    const table = group.querySelector("table");
    if (!table) return;
    const head = table.querySelector("thead tr");
    if (head && !head.querySelector(".wf-order")) {
      const th = document.createElement("th");
      th.className = "wf-order";
      th.textContent = "Order";
      head.prepend(th);
    }
    for (const row of rows(table)) decorate(table, row);
    const form = group.closest("form");
    if (form) form.addEventListener("submit", () => number(table));
    new MutationObserver(() => rows(table).forEach((row) => decorate(table, row))).observe(
      table.querySelector("tbody"),
      { childList: true },
    );
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("fieldset.wf-ordered").forEach(setUp);
  });
})();
