// The drawing pad: a signature drawn with a mouse, a finger or a pen (pointer events), kept as
// strokes so that it survives the pad being resized, and exported as a PNG with a transparent
// background, cut to the ink (the stamping engine scales it into the field).
//
// Points are stored in units of the pad's width (x / width, y / width), so a stroke keeps its
// shape whatever size the pad is shown at; the pad keeps one aspect ratio (CSS).

const EXPORT_SCALE = 2; // export pixels per CSS pixel of the pad
const MAX_EXPORT_WIDTH = 1600;
const PADDING = 4; // CSS px of air around the ink in the export

export class SignaturePad extends EventTarget {
  constructor(canvas, { ink = "#111827" } = {}) {
    super();
    this.canvas = canvas;
    this.ink = ink;
    this.strokes = [];
    this.active = null; // {pointerId, stroke}
    this.width = 0;
    this.height = 0;
    canvas.addEventListener("pointerdown", (event) => this.onDown(event));
    canvas.addEventListener("pointermove", (event) => this.onMove(event));
    canvas.addEventListener("pointerup", (event) => this.onUp(event));
    canvas.addEventListener("pointercancel", (event) => this.onUp(event));
    // A touch that starts on the pad draws; it never scrolls or zooms the page (also in CSS).
    canvas.addEventListener("touchstart", (event) => event.preventDefault(), { passive: false });
    new ResizeObserver(() => this.resize()).observe(canvas);
  }

  isEmpty() {
    return this.strokes.length === 0;
  }

  clear() {
    this.strokes = [];
    this.active = null;
    this.redraw();
    this.dispatchEvent(new Event("change"));
  }

  // --- input ------------------------------------------------------------------------------
  baseWidth() {
    // The pen's width in units of the pad's width: about 3 px on a 400 px pad.
    return 0.0075;
  }

  point(event) {
    const bounds = this.canvas.getBoundingClientRect();
    const w = bounds.width || 1;
    const pressure = event.pointerType === "pen" && event.pressure > 0 ? event.pressure : 0.5;
    return {
      x: (event.clientX - bounds.left) / w,
      y: (event.clientY - bounds.top) / w,
      w: this.baseWidth() * (0.6 + pressure * 0.8),
    };
  }

  onDown(event) {
    if (this.active || (event.pointerType === "mouse" && event.button !== 0)) return;
    event.preventDefault();
    this.canvas.setPointerCapture(event.pointerId);
    const stroke = [this.point(event)];
    this.strokes.push(stroke);
    this.active = { pointerId: event.pointerId, stroke };
    this.drawStroke(this.context(), stroke, this.width);
  }

  onMove(event) {
    if (!this.active || event.pointerId !== this.active.pointerId) return;
    event.preventDefault();
    const events = event.getCoalescedEvents ? event.getCoalescedEvents() : [];
    const stroke = this.active.stroke;
    const from = stroke.length - 1;
    for (const each of events.length ? events : [event]) stroke.push(this.point(each));
    this.drawStroke(this.context(), stroke, this.width, Math.max(0, from));
  }

  onUp(event) {
    if (!this.active || event.pointerId !== this.active.pointerId) return;
    this.active = null;
    this.dispatchEvent(new Event("change"));
  }

  // --- drawing ----------------------------------------------------------------------------
  context() {
    const ctx = this.canvas.getContext("2d");
    const density = this.canvas.width / (this.width || 1);
    ctx.setTransform(density, 0, 0, density, 0, 0);
    return ctx;
  }

  resize() {
    const bounds = this.canvas.getBoundingClientRect();
    if (!bounds.width) return;
    const density = window.devicePixelRatio || 1;
    this.width = bounds.width;
    this.height = bounds.height;
    this.canvas.width = Math.round(bounds.width * density);
    this.canvas.height = Math.round(bounds.height * density);
    this.redraw();
  }

  redraw() {
    const ctx = this.context();
    ctx.clearRect(0, 0, this.width, this.height);
    for (const stroke of this.strokes) this.drawStroke(ctx, stroke, this.width);
  }

  // Draw ``stroke`` (from point ``from`` on) at ``scale`` CSS px per unit, offset by (dx, dy).
  drawStroke(ctx, stroke, scale, from = 0, dx = 0, dy = 0) {
    ctx.strokeStyle = this.ink;
    ctx.fillStyle = this.ink;
    ctx.lineCap = "round";
    ctx.lineJoin = "round";
    if (stroke.length === 1) {
      const [p] = stroke;
      ctx.beginPath();
      ctx.arc(p.x * scale + dx, p.y * scale + dy, (p.w * scale) / 2, 0, Math.PI * 2);
      ctx.fill();
      return;
    }
    for (let i = Math.max(1, from); i < stroke.length; i += 1) {
      const a = stroke[i - 1];
      const b = stroke[i];
      ctx.beginPath();
      ctx.lineWidth = ((a.w + b.w) / 2) * scale;
      ctx.moveTo(a.x * scale + dx, a.y * scale + dy);
      ctx.lineTo(b.x * scale + dx, b.y * scale + dy);
      ctx.stroke();
    }
  }

  // --- export -----------------------------------------------------------------------------
  // A PNG data URL of the ink only (transparent around it), or null when nothing is drawn.
  toDataURL() {
    if (this.isEmpty()) return null;
    const scale = this.width || 400; // CSS px per unit
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const stroke of this.strokes) {
      for (const p of stroke) {
        const r = (p.w * scale) / 2;
        x0 = Math.min(x0, p.x * scale - r);
        y0 = Math.min(y0, p.y * scale - r);
        x1 = Math.max(x1, p.x * scale + r);
        y1 = Math.max(y1, p.y * scale + r);
      }
    }
    x0 -= PADDING;
    y0 -= PADDING;
    x1 += PADDING;
    y1 += PADDING;
    const factor = Math.min(EXPORT_SCALE, MAX_EXPORT_WIDTH / (x1 - x0));
    const out = document.createElement("canvas");
    out.width = Math.max(1, Math.ceil((x1 - x0) * factor));
    out.height = Math.max(1, Math.ceil((y1 - y0) * factor));
    const ctx = out.getContext("2d");
    ctx.setTransform(factor, 0, 0, factor, 0, 0);
    for (const stroke of this.strokes) this.drawStroke(ctx, stroke, scale, 0, -x0, -y0);
    return out.toDataURL("image/png");
  }
}
