// What the user can do in the editor, each action declared once:
//
//   {name, label, keys: ["Mod+Z"], perform(ctx, detail), enabled?(ctx), anywhere?}
//
// The keyboard looks keys up here; toolbar buttons (data-action="<name>") and the side panel run
// actions by name. ``ctx`` is {state, view, saver, preview, detector, toast}; ``detail`` is
// {event} for a key, {fieldId} from the panel, {} from a button. ``enabled`` false: the action does not run, its
// key is left to the browser and its button is disabled. ``anywhere``: its key works also while
// typing in a box or with the preview open.
//
// Keys are written like "Mod+Shift+Z", with the key's ``KeyboardEvent.key`` (any case) last. Mod is
// Ctrl or ⌘. Mod and Alt must be held when written, may be held when written "Mod?" / "Alt?", and
// must not be held otherwise. Shift is ignored unless written (Shift+V is V, and "+" is typed with
// Shift); a key written with Shift wins over the same key without it.

const ZOOM_STEPS = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4];
const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

// Every arrow key, with ``modifiers`` in front ("Mod?+Alt+").
function arrowKeys(modifiers) {
  return Object.keys(ARROWS).map((arrow) => modifiers + arrow);
}

// An arrow key's move on screen in points: 1, or 10 with Shift.
function arrowDelta(event) {
  const step = event.shiftKey ? 10 : 1;
  const [dx, dy] = ARROWS[event.key];
  return [dx * step, dy * step];
}

function zoomStep(view, direction) {
  const next =
    direction > 0
      ? ZOOM_STEPS.find((z) => z > view.zoom + 0.001) || view.zoom
      : [...ZOOM_STEPS].reverse().find((z) => z < view.zoom - 0.001) || view.zoom;
  view.setZoom(next);
}

const hasSelection = ({ state }) => state.selection.size > 0;

export const EDITOR_ACTIONS = [
  // --- tools ---------------------------------------------------------------------------------
  {
    name: "tool-select",
    label: "Select and move",
    keys: ["V"],
    perform: ({ view }) => view.setTool("select"),
  },
  {
    name: "tool-draw",
    label: "Draw a field",
    keys: ["R", "N"],
    perform: ({ view }) => view.setTool("draw"),
  },
  {
    name: "draw-options",
    label: "Draw the options of a radio group",
    perform: ({ state, view }, { fieldId }) => {
      state.select([fieldId]);
      view.setTool("option");
    },
  },
  {
    name: "cancel",
    label: "Back to the select tool, then clear the selection",
    keys: ["Mod?+Alt?+Escape"],
    perform: ({ state, view }) => {
      if (view.tool !== "select") view.setTool("select");
      else if (state.sub) state.selectSub([...state.selection][0], null);
      else state.clearSelection();
    },
  },

  // --- selection -----------------------------------------------------------------------------
  {
    name: "move",
    label: "Move the selection 1 pt (Shift: 10 pt)",
    keys: arrowKeys("Mod?+"),
    enabled: hasSelection,
    perform: ({ state }, { event }) => state.nudge(...arrowDelta(event)),
  },
  {
    name: "resize",
    label: "Resize the selection 1 pt (Shift: 10 pt)",
    keys: arrowKeys("Mod?+Alt+"),
    enabled: hasSelection,
    perform: ({ state }, { event }) => state.stretch(...arrowDelta(event)),
  },
  {
    name: "select-page",
    label: "Select every field of the page in view",
    keys: ["Mod+Alt?+A"],
    perform: ({ state, view }) =>
      state.select(state.fieldsOnPage(view.currentPage).map((f) => f.id)),
  },
  {
    name: "reveal-field",
    label: "Show a field and select it",
    perform: ({ view }, { fieldId }) => view.revealField(fieldId),
  },

  // --- editing -------------------------------------------------------------------------------
  {
    name: "copy",
    label: "Copy",
    keys: ["Mod+Alt?+C"],
    enabled: hasSelection,
    perform: ({ state, toast }) => {
      const count = state.copy();
      toast(`Copied ${count} field${count > 1 ? "s" : ""}.`);
    },
  },
  {
    name: "paste",
    label: "Paste onto the page in view",
    keys: ["Mod+Alt?+V"],
    perform: ({ state, view }) => state.paste(view.currentPage),
  },
  {
    name: "duplicate",
    label: "Duplicate",
    keys: ["Mod+Alt?+D"],
    perform: ({ state, view }) => {
      if (state.copy()) state.paste(state.selectedFields()[0]?.page ?? view.currentPage);
    },
  },
  {
    name: "delete",
    label: "Delete the selection (or the selected box or option)",
    keys: ["Mod?+Alt?+Delete", "Mod?+Alt?+Backspace"],
    perform: ({ state, toast }) => {
      const count = state.deleteSelection();
      if (count > 1) toast(`Deleted ${count} fields (Ctrl/⌘+Z brings them back).`);
    },
  },
  {
    name: "wrap-array",
    label: "Wrap in array",
    perform: ({ state, toast }) => {
      const result = state.wrapSelectionInArray();
      if (result.error) toast(result.error, "is-error");
      else
        toast(
          `Wrapped ${result.array.fieldIds.length} fields into the array "${result.array.alias}".`,
          "is-success",
        );
    },
  },

  // --- history -------------------------------------------------------------------------------
  {
    name: "undo",
    label: "Undo",
    keys: ["Mod+Alt?+Z"],
    enabled: ({ state }) => state.undoStack.length > 0,
    perform: ({ state }) => state.undo(),
  },
  {
    name: "redo",
    label: "Redo",
    keys: ["Mod+Alt?+Shift+Z", "Mod+Alt?+Y"],
    enabled: ({ state }) => state.redoStack.length > 0,
    perform: ({ state }) => state.redo(),
  },

  // --- zoom and pages ------------------------------------------------------------------------
  {
    name: "zoom-in",
    label: "Zoom in",
    keys: ["+", "="],
    perform: ({ view }) => zoomStep(view, 1),
  },
  {
    name: "zoom-out",
    label: "Zoom out",
    keys: ["-"],
    perform: ({ view }) => zoomStep(view, -1),
  },
  {
    name: "zoom-fit",
    label: "Fit the page width",
    keys: ["0"],
    perform: ({ view }) => view.setZoom(view.fitWidthZoom()),
  },
  {
    name: "page-prev",
    label: "Previous page",
    perform: ({ view }) => view.scrollToPage(view.currentPage - 1),
  },
  {
    name: "page-next",
    label: "Next page",
    perform: ({ view }) => view.scrollToPage(view.currentPage + 1),
  },

  // --- the working version -------------------------------------------------------------------
  {
    // Ctrl/⌘+S is always the editor's, never the browser's "Save page": no ``enabled`` here
    // (the status bar disables the button while there is nothing to save).
    name: "save",
    label: "Save",
    keys: ["Mod+Alt?+S"],
    anywhere: true,
    perform: ({ saver }) => saver.save(),
  },
  {
    name: "publish",
    label: "Publish",
    enabled: ({ state, saver }) =>
      !saver.busy && (state.dirty || (state.summary || {}).hasUnpublishedChanges !== false),
    perform: ({ saver }) => saver.publish(),
  },
  {
    name: "preview",
    label: "Preview",
    perform: ({ preview }) => preview.open(),
  },
  {
    name: "detect",
    label: "Detect fields",
    perform: ({ detector }) => (detector.isOpen ? detector.close() : detector.open()),
  },
];

// "Mod?+Alt+Shift+Z" as {key: "z", mod: "yes" | "no" | "any", alt: ..., shift: true | false}.
function parseKeys(text) {
  const [, prefix, key] = text.match(/^((?:(?:Mod|Alt)\??\+|Shift\+)*)(.+)$/);
  const has = (name) =>
    prefix.includes(`${name}?+`) ? "any" : prefix.includes(`${name}+`) ? "yes" : "no";
  return {
    key: key.toLowerCase(),
    mod: has("Mod"),
    alt: has("Alt"),
    shift: prefix.includes("Shift+"),
  };
}

function heldAsWritten(written, held) {
  return written === "any" || (written === "yes") === held;
}

function isTyping(target) {
  return Boolean(target.closest && target.closest("input, textarea, select, [contenteditable]"));
}

export class ActionRegistry {
  constructor(ctx) {
    this.ctx = ctx;
    this.actions = new Map();
    this.bindings = new Map(); // key -> [{keys, action}]
    this.buttons = [];
  }

  register(...actions) {
    for (const action of actions) {
      if (this.actions.has(action.name)) throw new Error(`Action "${action.name}" declared twice.`);
      this.actions.set(action.name, action);
      for (const text of action.keys || []) {
        const keys = parseKeys(text);
        const list = this.bindings.get(keys.key) || [];
        const same = list.find((b) => JSON.stringify(b.keys) === JSON.stringify(keys));
        if (same) throw new Error(`${text} is bound to "${same.action.name}" already.`);
        this.bindings.set(keys.key, [...list, { keys, action }]);
      }
    }
    return this;
  }

  get(name) {
    const action = this.actions.get(name);
    if (!action) throw new Error(`No action "${name}".`);
    return action;
  }

  enabled(name) {
    const action = this.get(name);
    return !action.enabled || Boolean(action.enabled(this.ctx));
  }

  // Runs the action if it is enabled; returns whether it ran.
  run(name, detail = {}) {
    if (!this.enabled(name)) return false;
    this.get(name).perform(this.ctx, detail);
    return true;
  }

  // The action bound to a keydown event, or null.
  forKey(event) {
    const matches = (this.bindings.get((event.key || "").toLowerCase()) || []).filter(
      ({ keys }) =>
        heldAsWritten(keys.mod, event.ctrlKey || event.metaKey) &&
        heldAsWritten(keys.alt, event.altKey) &&
        (!keys.shift || event.shiftKey),
    );
    const best = matches.find(({ keys }) => keys.shift) || matches[0];
    return best ? best.action : null;
  }

  // Each button runs the action its data-action names; refreshButtons() disables it with it.
  bindButtons(buttons) {
    for (const button of buttons) {
      const name = button.dataset.action;
      const action = this.get(name);
      // Icon buttons are named by their action (a text button by its text).
      if (!button.textContent.trim() && !button.hasAttribute("aria-label"))
        button.setAttribute("aria-label", action.label);
      button.addEventListener("click", () => this.run(name));
      this.buttons.push(button);
    }
  }

  refreshButtons() {
    for (const button of this.buttons) {
      if (this.get(button.dataset.action).enabled)
        button.disabled = !this.enabled(button.dataset.action);
    }
  }

  // Keys pressed anywhere in ``target`` run their action, except while typing in a box (where Esc
  // leaves the box) or while ``paused()`` (the preview is open): then only ``anywhere`` actions.
  listen(target, { paused = () => false } = {}) {
    target.addEventListener("keydown", (event) => {
      const action = this.forKey(event);
      if (!action?.anywhere) {
        if (paused()) return;
        if (isTyping(event.target)) {
          if (event.key === "Escape") event.target.blur();
          return;
        }
      }
      if (!action || !this.enabled(action.name)) return;
      event.preventDefault();
      action.perform(this.ctx, { event });
    });
  }
}
