// Progressive enhancement for the tidy-up page: poll the job's JSON, update the counts, reload once when
// it is over (the finished page is rendered by the server). Without JS, <noscript> meta refresh does it.
(function () {
  var box = document.getElementById("tidy");
  if (!box || box.dataset.status !== "running") return;
  function text(id, value) { var el = document.getElementById(id); if (el) el.textContent = value; }
  function poll() {
    fetch(box.dataset.progressUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (s) {
        if (s.status !== "running") { window.location.reload(); return; }
        text("tidy-pass", s.pass ? "pass " + s.pass : "starting");
        text("tidy-rewritten", String(s.rewritten));
        text("tidy-rewriting", s.rewriting ? "(writing " + s.rewriting + " now)" : "");
        text("tidy-lines", s.lines.join("\n"));
        setTimeout(poll, 700);
      })
      .catch(function () { setTimeout(poll, 2000); });
  }
  setTimeout(poll, 500);
})();
