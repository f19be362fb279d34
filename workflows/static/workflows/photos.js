// A phone's photo made small enough before it is sent, where the browser can (the server does
// the same for every other one: workflows/engine/photos.py).
const SIDES = [1600, 1280, 1024, 800, 640, 480, 360, 240];
const QUALITIES = [0.82, 0.7, 0.58];

// The photo as a JPEG of at most ``maxBytes``, or null when no size gets there.
export async function smaller(file, maxBytes) {
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
      const blob = await new Promise((resolve) => {
        canvas.toBlob(resolve, "image/jpeg", quality);
      });
      if (blob && blob.size <= maxBytes) {
        const name = file.name.replace(/\.[^.]*$/, "") + ".jpg";
        return new File([blob], name, { type: "image/jpeg" });
      }
    }
  }
  return null;
}
