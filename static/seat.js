/* Seat and spectator pages: tap cards to choose, a live line saying what the choice means,
   and the page keeping itself current. Without this script every form still works
   (the cards are checkboxes) and the Reload button stays. */
(function () {
  "use strict";
  var say = window.silverEyeSay || function (key) { return key; };  /* static/words.js */

  function spots(boxes) {
    return boxes.map(function (b) {
      var label = b.dataset.label ? " (" + b.dataset.label + ")" : "";
      return b.dataset.say + label;
    });
  }

  function and(words) {
    if (words.length <= 1) return words.join("");
    var lang = document.documentElement.lang || "en";
    if (lang === "en") lang = "en-GB";  /* "a, b and c", as the server says lists */
    if (window.Intl && Intl.ListFormat) {
      return new Intl.ListFormat(lang, {style: "long", type: "conjunction"}).format(words);
    }
    return words.join(", ");
  }

  function sentence(form, ticked) {
    var kind = form.dataset.kind, hand = form.dataset.hand;
    var least = +form.dataset.least || 1, most = +form.dataset.most || 1;
    var picked = ticked.filter(function (b) { return b.value.charAt(0) === "v"; });
    var pile = ticked.filter(function (b) { return b.value.charAt(0) === "p"; });
    if (!ticked.length) return {text: say("tick_first"), ok: false, quiet: true};
    if (ticked.length > most) return {text: say("too_many", {count: ticked.length, most: most}), ok: false};
    var names = spots(picked);
    var text;
    if (kind === "exchange") {
      var values = picked.map(function (b) { return b.dataset.value; });
      var same = values.every(function (v) { return v !== "" && v === values[0]; });
      text = hand ? say("exchange_for", {cards: and(names), hand: hand}) : say("exchange", {cards: and(names)});
      if (picked.length > 1) text = say(same ? "they_match" : "must_match", {sentence: text});
    } else if (kind === "peek") {
      text = say("peek", {cards: and(names)});
    } else if (kind === "undermine") {
      text = say("undermine", {cards: names.length ? and(names) : say("two_village"),
                               pile: pile.length ? and(spots(pile)) : say("two_pile")});
    } else {
      text = say("titled", {title: form.dataset.title, cards: and(names.concat(spots(pile)))});
      if (most > 1) text = say("of_most", {sentence: text, count: ticked.length, most: most});
    }
    if (ticked.length < least) text = say("more", {sentence: text, count: least - ticked.length});
    return {text: say("end", {sentence: text}), ok: ticked.length >= least};
  }

  function initChoice() {
    var form = document.getElementById("choose");
    if (!form) return;
    var line = form.querySelector(".live-line");
    var boxes = Array.prototype.slice.call(document.querySelectorAll('input.pick-box[form="choose"]'));
    var order = [];
    function update() {
      boxes.forEach(function (b) { b.closest("label").classList.toggle("checked", b.checked); });
      var ticked = order.filter(function (b) { return b.checked; });
      var said = sentence(form, ticked);
      line.textContent = said.text;
      line.classList.toggle("bad", !said.ok && !said.quiet);
    }
    boxes.forEach(function (b) {
      if (b.checked) order.push(b);
      b.addEventListener("change", function () {
        order = order.filter(function (o) { return o !== b; });
        if (b.checked) order.push(b);
        update();
      });
    });
    form.addEventListener("submit", function (event) {
      var ticked = order.filter(function (b) { return b.checked; });
      if (!sentence(form, ticked).ok) { event.preventDefault(); line.focus && line.focus(); }
    });
    update();
  }

  /* Keep the page current: ask the cheap /seq endpoint (ETag) every few seconds and,
     when the game moved (or something was said at the table, or the people voted or
     gave time), swap in the new page
     without navigating away, keeping a message being typed. */
  function initLive() {
    var live = document.getElementById("live");
    if (!live || !window.fetch) return;
    var url = live.dataset.seqUrl, seq = live.dataset.seq, talk = live.dataset.talk, people = live.dataset.people, etag = null, every = 3000, busy = false;
    function refresh() {
      var side = document.getElementById("more"), sideOpen = side && side.open;
      var chat = document.getElementById("talk"), chatOpen = chat && chat.open;
      var kept = Array.prototype.map.call(document.querySelectorAll("input.pick-box:checked"), function (b) { return b.value; });
      var draft = document.getElementById("talk-text"), typed = draft ? draft.value : "";
      var typing = draft && document.activeElement === draft, caret = typing ? [draft.selectionStart, draft.selectionEnd] : null;
      return fetch(location.href, {credentials: "same-origin"}).then(function (r) { return r.text(); }).then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("main");
        if (!fresh) return;
        document.querySelector("main").innerHTML = fresh.innerHTML;
        document.title = doc.title;
        kept.forEach(function (v) {
          var box = document.querySelector('input.pick-box[value="' + v + '"]');
          if (box) box.checked = true;
        });
        var box = document.getElementById("talk-text");  /* a message being typed stays */
        if (box && typed) box.value = typed;
        if (box && caret) { box.focus(); box.setSelectionRange(caret[0], caret[1]); }
        var now = document.getElementById("live");
        if (now) { seq = now.dataset.seq; talk = now.dataset.talk; people = now.dataset.people; }
        initChoice();
        openSide();
        if (sideOpen && document.getElementById("more")) document.getElementById("more").open = true;
        if (chatOpen && document.getElementById("talk")) document.getElementById("talk").open = true;
      });
    }
    function tick() {
      if (document.hidden || busy) return;
      busy = true;
      var headers = etag ? {"If-None-Match": etag} : {};
      fetch(url, {headers: headers, cache: "no-cache"}).then(function (r) {
        if (r.status === 304) return null;
        etag = r.headers.get("ETag");
        return r.json();
      }).then(function (data) {
        if (data && data.poll_ms) every = data.poll_ms;
        if (data && (String(data.seq) !== String(seq) ||
                     (talk !== undefined && data.talk !== undefined && String(data.talk) !== String(talk)) ||
                     /* a vote opened, answered or closed, a day given (issue 21) */
                     (people !== undefined && data.people !== undefined && String(data.people) !== String(people)))) return refresh();
      }).catch(function () {}).then(function () { busy = false; });
    }
    setInterval(tick, every);
  }

  function openSide() {
    var side = document.getElementById("more");
    if (side && window.matchMedia && window.matchMedia("(min-width: 880px)").matches) side.open = true;
  }

  /* The folded table talk opens when a link points at it (#talk). */
  function openTalk() {
    var chat = document.getElementById("talk");
    if (chat && location.hash === "#talk") chat.open = true;
  }

  initChoice();
  openSide();
  openTalk();
  initLive();
})();
