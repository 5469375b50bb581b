(function () {
  // The live board (web/board.py): fetch the list when its stream says the location changed
  // (web/board_stream.py), or every few seconds where the stream cannot be held; swap it in
  // when it changed, beep and notify for an order not seen before, keep the countdowns current.
  var board = document.getElementById("board");
  var status = document.getElementById("board-status");
  var alerts = document.getElementById("board-alerts");
  var audio = null;
  var seen = ids();
  var last = board.innerHTML;
  var live = false; // the stream is open: the list is read on its news (and every `quiet` ms)
  var timer = null;
  var busy = false; // a read is on its way
  var again = false; // news came meanwhile: read once more after it
  var lastRead = 0;
  var SPACING = 300; // news in a burst: one read at most this often

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

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(read, Number(live ? board.dataset.quiet : board.dataset.every));
  }

  function soon() {
    if (busy) { again = true; return; }
    clearTimeout(timer);
    timer = setTimeout(read, Math.max(0, lastRead + SPACING - Date.now()));
  }

  function read() {
    busy = true;
    lastRead = Date.now();
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
      .finally(function () {
        busy = false;
        if (again) { again = false; soon(); } else { schedule(); }
      });
  }

  function listen() {
    // Without EventSource, or once the stream failed 3 times in a row (a proxy that cuts
    // it, a session that ended), the board reads its list every `every` ms, as before.
    if (!window.EventSource || !board.dataset.stream) { return; }
    var failures = 0;
    var source = new EventSource(board.dataset.stream);
    source.addEventListener("open", function () {
      failures = 0;
      live = true;
      board.dataset.live = "stream";
      soon(); // what changed while it was not open
    });
    source.addEventListener("changed", soon);
    source.addEventListener("error", function () {
      failures += 1;
      live = false;
      board.dataset.live = "poll";
      if (source.readyState === EventSource.CLOSED || failures >= 3) { source.close(); }
      if (!busy) { schedule(); }
    });
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
  var undo = document.getElementById("board-undo");
  if (undo) { // a completion's undo lasts as long as the server takes it
    setTimeout(function () { undo.remove(); }, Math.max(0, Number(undo.dataset.until) - Date.now()));
  }
  // the server wrote the countdowns: the first paint waits for nothing here
  setInterval(tick, 15000);
  schedule();
  listen();
})();
