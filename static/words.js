/* The page's words for its scripts (issue 50): app/web/language.py script_words, in the
   page's language, written into every page as JSON data (<script type="application/json"
   id="words">). window.silverEyeSay("key", {name: value}) fills "%(name)s" as Python does;
   a key the page does not carry says itself. */
(function () {
  "use strict";
  var el = document.getElementById("words"), words = {};
  try { words = el ? JSON.parse(el.textContent) : {}; } catch (e) { words = {}; }
  window.silverEyeSay = function (key, values) {
    return (words[key] || key).replace(/%\((\w+)\)s/g, function (m, name) {
      return values && values[name] !== undefined ? String(values[name]) : m;
    });
  };
}());
