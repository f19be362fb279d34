// The bulk send's upload page (admin/esign/bulkbatch/upload.html) lists every template's
// columns and sample file; this shows only those of the template chosen in the form (none
// before one is chosen). Without it, every template's list shows.
(function () {
  "use strict";
  var select = document.getElementById("id_template");
  var lists = document.querySelectorAll(".bulk-template-columns");
  if (!select || !lists.length) return;
  function show() {
    lists.forEach(function (list) {
      list.hidden = list.dataset.template !== select.value;
    });
  }
  select.addEventListener("change", show);
  show();
})();
