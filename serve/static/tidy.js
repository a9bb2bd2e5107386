// Progressive enhancement for the tidy-up page: poll the job's JSON, update the counts, reload once when
// it is over (the finished page is rendered by the server), and say so when the server stops answering.
// Without JS, <noscript> meta refresh does it (and lands on the server's 404 after a restart).
(function () {
  var box = document.getElementById("tidy");
  if (!box || box.dataset.status !== "running") return;
  function text(id, value) { var el = document.getElementById(id); if (el) el.textContent = value; }
  // 404: the job lived in a server process that has gone (a restart); 403: this server has another token.
  // Either way the server's own page for this address says what happened, so show it.
  var GONE = [403, 404];
  function poll() {
    fetch(box.dataset.progressUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (r) {
        if (GONE.indexOf(r.status) !== -1) { window.location.reload(); return null; }
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.json();
      })
      .then(function (s) {
        if (s === null) return;
        text("tidy-lost", "");
        if (s.status !== "running") { window.location.reload(); return; }
        text("tidy-pass", s.pass ? "pass " + s.pass : "starting");
        text("tidy-rewritten", String(s.rewritten));
        text("tidy-rewriting", s.rewriting ? "(writing " + s.rewriting + " now)" : "");
        text("tidy-lines", s.lines.join("\n"));
        setTimeout(poll, 700);
      })
      .catch(function () {
        text("tidy-lost", "agentuse serve is not answering: if it was stopped, this tidy-up stopped with it " +
          "(the next command finishes or rolls back what it left). Trying again every few seconds.");
        setTimeout(poll, 2000);
      });
  }
  setTimeout(poll, 500);
})();
