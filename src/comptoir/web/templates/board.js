(function () {
  // The live board (web/board.py): fetch the list every few seconds, swap it in when it
  // changed, beep and notify for an order not seen before, keep the countdowns current.
  var board = document.getElementById("board");
  var status = document.getElementById("board-status");
  var alerts = document.getElementById("board-alerts");
  var audio = null;
  var seen = ids();
  var last = board.innerHTML;

  function ids() {
    var found = {};
    board.querySelectorAll("[data-order]").forEach(function (ticket) { found[ticket.dataset.order] = true; });
    return found;
  }

  function beep() {
    if (!audio) { return; }
    var tone = audio.createOscillator();
    var gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.setValueAtTime(0.2, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.6);
    tone.connect(gain);
    gain.connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.6);
  }

  function announce(count) {
    var words = count === 1 ? "1 new order" : count + " new orders";
    status.textContent = words;
    beep();
    if (window.Notification && Notification.permission === "granted") {
      new Notification("Comptoir", { body: words });
    }
  }

  function tick() {
    var now = Date.now();
    board.querySelectorAll("[data-due]").forEach(function (due) {
      var minutes = Math.floor((Number(due.dataset.due) - now) / 60000);
      due.textContent = minutes > 0 ? "due in " + minutes + " min" : minutes === 0 ? "due now" : "late by " + -minutes + " min";
      due.closest(".ticket").classList.toggle("late", minutes < 0);
    });
  }

  function poll() {
    fetch(board.dataset.part, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (answer) {
        if (answer.redirected || !answer.ok) { throw new Error(String(answer.status)); }
        return answer.text();
      })
      .then(function (html) {
        if (html !== last) {
          last = html;
          board.innerHTML = html;
          var now = ids();
          var fresh = Object.keys(now).filter(function (id) { return !seen[id]; }).length;
          seen = now;
          if (fresh) { announce(fresh); }
          tick();
        }
      })
      .catch(function () { status.textContent = "Not updated: check the connection, or refresh."; })
      .finally(function () { setTimeout(poll, Number(board.dataset.every)); });
  }

  if (window.AudioContext || window.Notification) {
    alerts.hidden = false;
    alerts.addEventListener("click", function () {
      if (window.AudioContext && !audio) { audio = new AudioContext(); }
      if (audio) { audio.resume(); }
      if (window.Notification && Notification.permission === "default") { Notification.requestPermission(); }
      alerts.textContent = "Sound and notifications on";
      alerts.disabled = true;
      beep();
    });
  }
  // the server wrote the countdowns: the first paint waits for nothing here
  setInterval(tick, 15000);
  setTimeout(poll, Number(board.dataset.every));
})();
