/* Replay viewer: play/pause and keyboard stepping.
   The page works without this file (every step is a plain link); the script only
   follows those same links on a timer or on a key press. */
(function () {
  "use strict";
  var say = window.silverEyeSay || function (key) { return key; };  /* static/words.js */
  var nav = document.getElementById("replay");
  if (!nav) { return; }
  var play = document.getElementById("play");
  var help = document.getElementById("keys-help");
  var next = nav.getAttribute("data-next");
  var prev = nav.getAttribute("data-prev");
  var first = nav.getAttribute("data-first-url");
  var last = nav.getAttribute("data-last-url");
  var KEY = "silver-eye-replay-playing";
  var DELAY_MS = 1400;
  var timer = null;

  function go(url) { if (url) { window.location.assign(url); } }

  function setPlaying(on) {
    try { on ? sessionStorage.setItem(KEY, "1") : sessionStorage.removeItem(KEY); } catch (e) { /* private mode */ }
    play.setAttribute("aria-pressed", on ? "true" : "false");
    play.textContent = say(on ? "pause" : "play");
    if (timer) { clearTimeout(timer); timer = null; }
    if (on) {
      if (next) { timer = setTimeout(function () { go(next); }, DELAY_MS); }
      else { setPlaying(false); }
    }
  }

  function playing() {
    try { return sessionStorage.getItem(KEY) === "1"; } catch (e) { return false; }
  }

  play.hidden = false;
  if (help) { help.hidden = false; }
  play.addEventListener("click", function () { setPlaying(!playing() || !timer); });
  setPlaying(playing() && !!next);

  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    if (ev.key === "ArrowRight") { setPlaying(false); go(next); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { setPlaying(false); go(prev); ev.preventDefault(); }
    else if (ev.key === "Home") { setPlaying(false); go(first); ev.preventDefault(); }
    else if (ev.key === "End") { setPlaying(false); go(last); ev.preventDefault(); }
    else if (ev.key === " ") { setPlaying(!timer); ev.preventDefault(); }
  });
})();
