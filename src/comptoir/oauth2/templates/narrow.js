(function () {
  var target = document.getElementById("target");
  var choose = document.getElementById("choose");
  if (choose) { choose.hidden = true; }
  if (!target) { return; }
  target.addEventListener("change", function () {
    var chosen = target.value;
    document.querySelectorAll("select[data-narrowed]").forEach(function (select) {
      select.querySelectorAll("optgroup[data-targets]").forEach(function (group) {
        var fits = group.dataset.targets.split(" ").indexOf(chosen) >= 0;
        group.hidden = !fits;
        group.disabled = !fits;
      });
      var current = select.options[select.selectedIndex];
      if (!current || current.disabled || current.parentNode.disabled) {
        var first = Array.prototype.find.call(select.options, function (option) {
          return !option.disabled && !option.parentNode.disabled;
        });
        select.value = first ? first.value : "";
      }
    });
    var blocked = false;
    document.querySelectorAll("[data-blocked-for]").forEach(function (note) {
      note.hidden = note.dataset.blockedFor !== chosen;
      blocked = blocked || !note.hidden;
    });
    document.querySelector("button[value=allow]").disabled = blocked;
  });
})();
