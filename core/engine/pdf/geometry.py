"""Page geometry: the local frame of a (possibly rotated) box."""

from __future__ import annotations

from core.engine.template_spec import Rect


# (a, b, c, d, e, f) of the frame turned by each rotation, for a w x h box: PDF matrices that
# map local (u, v) to box-relative (x, y) with the content turned counter-clockwise.
def rotation_matrix(rotation: int, width: float, height: float) -> tuple[float, ...]:
    return {
        0: (1, 0, 0, 1, 0, 0),
        90: (0, 1, -1, 0, width, 0),
        180: (-1, 0, 0, -1, width, height),
        270: (0, -1, 1, 0, 0, height),
    }[rotation]


def local_size(rect: Rect, rotation: int) -> tuple[float, float]:
    return (rect.height, rect.width) if rotation in (90, 270) else (rect.width, rect.height)


def local_frame(rect: Rect, rotation: int) -> tuple[float, float, tuple[float, ...]]:
    """The local frame of ``rect`` turned by ``rotation``: its width, its height and the matrix
    placing it in the box (box-relative), which whoever draws in the frame needs together."""
    width, height = local_size(rect, rotation)
    return width, height, rotation_matrix(rotation, rect.width, rect.height)
