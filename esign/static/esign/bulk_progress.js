// The progress bar of a bulk send that is sending (admin/esign/bulkbatch/batch.html): asks
// progress.json every second and moves the bar and the counts; once the batch is no longer
// sending, the page is loaded again to show the outcome of each row and the download.
(function () {
  "use strict";
  const section = document.querySelector(".bulk-progress");
  if (!section) {
    return;
  }
  const bar = document.getElementById("bulk-progress-bar");
  const url = section.dataset.progressUrl;

  function show(progress) {
    bar.max = progress.total;
    bar.value = progress.done;
    bar.textContent = Math.round((100 * progress.done) / Math.max(progress.total, 1)) + "%";
    for (const key of ["done", "created", "failed"]) {
      const count = section.querySelector('[data-count="' + key + '"]');
      if (count) {
        count.textContent = String(progress[key]);
      }
    }
  }

  async function poll() {
    try {
      const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
      if (response.ok) {
        const progress = await response.json();
        show(progress);
        if (progress.status !== "sending") {
          window.location.reload();
          return;
        }
      }
    } catch (error) {
      // A lost connection: try again at the next tick.
    }
    window.setTimeout(poll, 1000);
  }

  window.setTimeout(poll, 1000);
})();
