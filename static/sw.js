/* Silver Eye Post's service worker (issue 49 item 3), served as /sw.js.
   It shows a push and opens its seat link on a tap. It has no fetch handler and
   caches nothing: the pages hold private cards, and none is ever kept on the device.
   A push's JSON is {title, body, url, tag}; the tag is one per game, so a game's new
   notice replaces its last one instead of stacking. */
"use strict";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  var title = data.title || "Silver Eye Post";
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || "",
    tag: data.tag || "silver-eye",
    renotify: true,
    icon: "/static/icons/icon-192.png",
    badge: "/static/icons/icon-192.png",
    data: {url: data.url || "/"}
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var url = (event.notification.data && event.notification.data.url) || "/";
  var here = new URL(url, self.location.origin);
  if (here.origin !== self.location.origin) { url = "/"; }  // only our own pages
  event.waitUntil(self.clients.matchAll({type: "window", includeUncontrolled: true})
    .then(function (open) {
      for (var i = 0; i < open.length; i++) {
        if (open[i].url === here.href && "focus" in open[i]) { return open[i].focus(); }
      }
      return self.clients.openWindow(url);
    }));
});
