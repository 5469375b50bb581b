document.querySelectorAll("button[data-copy]").forEach(function (button) {
  var status = document.getElementById("copy-status");
  button.hidden = false;
  button.addEventListener("click", function () {
    var text = document.getElementById(button.dataset.copy).textContent;
    navigator.clipboard.writeText(text).then(function () {
      status.textContent = button.dataset.done;
    }, function () {
      status.textContent = "Copying is not allowed here: select the text and copy it.";
    });
  });
});
