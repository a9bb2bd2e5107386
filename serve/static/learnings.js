// The Learnings tab's filter box: plain JS over data attributes the server rendered. Without JS every rule
// is listed, grouped and counted as the server counted them.
(function () {
  var text = document.getElementById("filter-text");
  if (!text) return;
  var selects = Array.prototype.slice.call(document.querySelectorAll(".filters select"));
  var rules = Array.prototype.slice.call(document.querySelectorAll("li.rule[data-id]"));
  var count = document.getElementById("filter-count");
  function apply() {
    var words = text.value.toLowerCase().split(/\s+/).filter(Boolean);
    var active = words.length > 0;
    var shown = 0;
    rules.forEach(function (li) {
      var ok = words.every(function (w) { return li.dataset.text.indexOf(w) !== -1; });
      selects.forEach(function (s) {
        if (!s.value) return;
        active = true;
        var values = s.dataset.key === "state" ? li.dataset.state.split("|") : [li.dataset[s.dataset.key]];
        if (values.indexOf(s.value) === -1) ok = false;
      });
      li.hidden = !ok;
      if (ok) shown += 1;
    });
    document.querySelectorAll("details.group[data-group]").forEach(function (group) {
      var all = group.querySelectorAll("li.rule[data-id]");
      if (!all.length) return;
      var visible = group.querySelectorAll("li.rule[data-id]:not([hidden])").length;
      var label = group.querySelector("[data-shown]");
      if (label) label.textContent = active ? "— " + visible + " shown" : "";
      group.hidden = active && visible === 0;
      if (active && visible) group.open = true;  // a match inside a folded group is shown, not hidden
    });
    count.textContent = active ? shown + " of " + rules.length + " rules shown" : "";
  }
  text.addEventListener("input", apply);
  selects.forEach(function (s) { s.addEventListener("change", apply); });
  // A link to one rule (#rule-<id>) opens the group it sits in.
  function reveal() {
    var target = location.hash && document.getElementById(location.hash.slice(1));
    if (target) { var group = target.closest("details"); if (group) group.open = true; target.scrollIntoView(); }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
})();
