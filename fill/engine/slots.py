"""What one filled field puts on a page: its slots, each a box and what to draw in it.

Flat output draws the visible slots; interactive output turns each slot into a widget whose
appearance is that same drawing. Keeping one description for both means a value looks the same
either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.engine.images import LoadedImage
from core.engine.pdf.draw import Look, Painter
from core.engine.template_spec import FieldSpec, Rect
from fill.engine.formatting import Content

Draw = Callable[[Painter, float, float], None]


@dataclass(frozen=True)
class Slot:
    suffix: str  # appended to the field's name to name its interactive field
    kind: str  # text | checkbox | radio | image
    rect: Rect
    rotation: int
    value: str | bool  # the text shown, the checkbox state, or the radio group's selected id
    draw: Draw | None  # the (on) appearance; None when there is nothing to draw
    option: str | None = None  # radio: the option this slot stands for
    multiline: bool = False
    comb: int | None = None

    @property
    def visible(self) -> bool:
        """Whether flat output draws it: a checked box, the chosen option, non-empty text."""
        if self.draw is None:
            return False
        if self.kind == "checkbox":
            return bool(self.value)
        if self.kind == "radio":
            return self.value == self.option
        return True


def _text(
    suffix: str,
    rect: Rect,
    text: str,
    look: Look,
    rotation: int,
    *,
    multiline: bool = False,
    auto_size: bool = False,
) -> Slot:
    draw: Draw | None = None
    if text and multiline:
        draw = lambda p, w, h: p.text_block(text, look, w, h, shrink=auto_size)  # noqa: E731
    elif text:
        draw = lambda p, w, h: p.text_line(text, look, w, h)  # noqa: E731
    return Slot(suffix, "text", rect, rotation, text, draw, multiline=multiline)


def _comb(field: FieldSpec, chars: str, look: Look) -> Slot:
    """A charList as one comb field: its characters drawn in the boxes, within their union."""
    x0, y0 = min(b.x for b in field.boxes), min(b.y for b in field.boxes)
    union = Rect(
        x0, y0, max(b.right for b in field.boxes) - x0, max(b.top for b in field.boxes) - y0
    )
    offsets = [(box.x - x0, box.width) for box in field.boxes]
    # What the boxes cannot show is dropped from the value too, as the flat drawing drops it:
    # form software reads /V, and it must not hold characters nobody saw (nor exceed /MaxLen).
    chars = chars[: len(field.boxes)]

    def draw(painter: Painter, width: float, height: float) -> None:
        for (x, box_width), char in zip(offsets, chars, strict=False):
            painter.canvas.saveState()
            painter.canvas.translate(x, 0)
            painter.text_line(char, look, box_width, height)
            painter.canvas.restoreState()

    return Slot("", "text", union, 0, chars, draw if chars else None, comb=len(field.boxes))


def slots_for(
    field: FieldSpec,
    content: Content,
    look: Look,
    rotation: int,
    *,
    interactive: bool,
    image: LoadedImage | None,
) -> tuple[list[Slot], list[Slot]]:
    """What the field puts on its page: the slots drawn flat, only those that show something
    (every slot of flat output; an image's always, since AcroForm has no image field), and the
    slots that become widgets (the others of interactive output)."""
    flat: list[Slot] = []
    widgets: list[Slot] = []
    for slot in _slots(field, content, look, rotation, image, comb=interactive):
        if interactive and slot.kind != "image":
            widgets.append(slot)
        elif slot.visible:
            flat.append(slot)
    return flat, widgets


def _slots(
    field: FieldSpec,
    content: Content,
    look: Look,
    rotation: int,
    image: LoadedImage | None,
    *,
    comb: bool,  # a charList as one comb field (interactive output), else a slot per box
) -> list[Slot]:
    empty = content.kind == "empty"
    kind = field.type
    if kind == "imageFile":
        draw = (lambda p, w, h: p.image(image, w, h)) if image is not None and not empty else None
        return [Slot("", "image", field.rect, rotation, "", draw)]
    if kind == "checkbox":
        check: Draw = lambda p, w, h: p.check(look, w, h)  # noqa: E731
        return [Slot("", "checkbox", field.rect, 0, content.flag and not empty, check)]
    if kind == "radioGroup":
        dot: Draw = lambda p, w, h: p.dot(look, w, h)  # noqa: E731
        selected = "" if empty else content.option
        return [Slot("", "radio", o.rect, 0, selected, dot, option=o.id) for o in field.options]
    if field.parts:
        texts = {} if empty else dict(content.parts)
        return [
            _text(f"_{name}", rect, texts.get(name, ""), look, rotation)
            for name, rect in field.parts
        ]
    if kind == "charList":
        chars = "" if empty else "".join(content.boxes)
        centred = Look(look.face, look.size, look.color, "center")
        if comb:
            return [_comb(field, chars, centred)]
        return [
            _text(f"_{i}", box, char, centred, rotation)
            for i, (box, char) in enumerate(zip(field.boxes, chars, strict=False))
        ]
    if kind == "textWrap":
        lines = () if empty else content.boxes
        return [
            _text(f"_{i}", box, lines[i] if i < len(lines) else "", look, rotation)
            for i, box in enumerate(field.boxes)
        ]
    return [
        _text(
            "",
            field.rect,
            "" if empty else content.text,
            look,
            rotation,
            multiline=kind == "longText",
            auto_size=field.auto_size,
        )
    ]
