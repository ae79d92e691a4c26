/* "Notify this browser of my turns" (issue 49 item 3): a progressive enhancement.
   A page that offers it holds <div id="push-box" data-url="..." data-key="..." hidden>
   with a button and a line for words; without JavaScript, service workers or push,
   the box stays hidden and the page is as before. The button asks the browser for
   permission, subscribes with the server's VAPID key and posts the subscription
   (PushSubscription.toJSON()) to data-url; pressed again, it unsubscribes. */
(function () {
  "use strict";
  var box = document.getElementById("push-box");
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js", {scope: "/"}).catch(function () {});
  }
  if (!box || !("serviceWorker" in navigator) || !("PushManager" in window) ||
      !("Notification" in window) || !box.dataset.key) { return; }
  var words = window.silverEyeSay || function (key) { return key; };  /* static/words.js */
  var button = box.querySelector("button");
  var said = box.querySelector(".push-said");

  function keyBytes(text) {
    var padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(padded), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }
  function say(words) { said.textContent = words; }
  function show(on) {
    button.textContent = words(on ? "push_stop" : "push_start");
    button.setAttribute("aria-pressed", on ? "true" : "false");
  }
  function send(method, body) {
    return fetch(box.dataset.url, {method: method, credentials: "same-origin",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})
      .then(function (answer) {
        return answer.json().catch(function () { return {}; }).then(function (json) {
          if (!answer.ok) { throw new Error(json.message || words("push_no")); }
          return json;
        });
      });
  }
  function current() {
    return navigator.serviceWorker.ready.then(function (reg) {
      return reg.pushManager.getSubscription().then(function (sub) { return [reg, sub]; });
    });
  }

  box.hidden = false;
  show(false);  // (the server cannot tell which browser this is: pressing again is harmless)

  button.addEventListener("click", function () {
    button.disabled = true;
    current().then(function (found) {
      var reg = found[0], sub = found[1];
      if (button.getAttribute("aria-pressed") === "true" && sub) {
        return send("DELETE", {endpoint: sub.endpoint}).then(function () {
          show(false);
          say(words("push_stopped"));
        });
      }
      return Notification.requestPermission().then(function (permission) {
        if (permission !== "granted") {
          say(words("push_refused"));
          return null;
        }
        return (sub ? Promise.resolve(sub) : reg.pushManager.subscribe({
          userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.key)}))
          .then(function (made) { return send("POST", made.toJSON()); })
          .then(function (answer) {
            show(true);
            say(words("push_done", {shown: answer.shown}));
          });
      });
    }).catch(function (error) {
      say(words("push_failed", {error: error && error.message ? error.message : error}));
    }).then(function () { button.disabled = false; });
  });
}());
