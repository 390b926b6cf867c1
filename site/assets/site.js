// The airvsx site's one script: instant search, filters, sort and "Show
// more" on the home page. The home page holds only the first cards; the
// rest come from window.AIRVSX_INDEX (assets/search-index.js, loaded
// after the page has painted, as a script: browsers refuse fetch() of
// local files), from which this script builds the cards it shows. No
// framework, no network. Without this script every page still works: the
// home page shows the first cards and links every category and publisher
// page.
(function () {
  "use strict";
  var form = document.getElementById("search");
  var list = document.getElementById("cards");
  var results = document.getElementById("results");
  if (!form || !list || !results) {
    return;
  }
  var PAGE = 60;
  var q = document.getElementById("q");
  var category = document.getElementById("category");
  var platform = document.getElementById("platform");
  var capability = document.getElementById("capability");
  var sort = document.getElementById("sort");
  var status = document.getElementById("status");
  var moreWrap = document.getElementById("more-wrap");
  var more = document.getElementById("more");
  var browse = document.getElementById("browse");
  var data = null, items = null, total = 0;
  var limit = PAGE;
  var active = false; // the list shows #results, built from the index
  var waiting = [];
  var loading = false;

  function words(s) {
    return s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  }
  function lowerAll(a) {
    return a.map(function (s) { return s.toLowerCase(); });
  }

  // load runs then once the search index is loaded, loading it first.
  function load(then) {
    if (then) {
      waiting.push(then);
    }
    if (data === null && window.AIRVSX_INDEX) {
      ready(window.AIRVSX_INDEX);
    }
    if (data !== null) {
      var w = waiting;
      waiting = [];
      w.forEach(function (f) { f(); });
      return;
    }
    if (loading) {
      return;
    }
    loading = true;
    var s = document.createElement("script");
    s.src = "assets/search-index.js";
    s.onload = function () { load(null); };
    s.onerror = function () { status.textContent = "The search index could not be loaded: search and \u201cShow more\u201d need assets/search-index.js."; };
    document.body.appendChild(s);
  }

  // ready precomputes the lower-cased fields of each entry.
  function ready(d) {
    data = d;
    total = d.entries.length;
    items = d.entries.map(function (e, i) {
      var id = e[0].toLowerCase();
      return {
        i: i, e: e, id: id, name: id.slice(id.indexOf(".") + 1), dn: e[1].toLowerCase(), dnw: words(e[1]),
        pub: e[2].toLowerCase(), desc: words(e[3]), tags: lowerAll(e[4]), cats: e[5], plats: e[6],
        caps: e[7], date: e[8]
      };
    });
    document.documentElement.setAttribute("data-index", "ready");
  }

  function el(tag, cls, text) {
    var n = document.createElement(tag);
    if (cls) { n.className = cls; }
    if (text !== undefined) { n.textContent = text; }
    return n;
  }
  function link(href, text) {
    var a = el("a", "", text);
    a.setAttribute("href", href);
    return a;
  }
  function badge(cls, text, into) {
    var span = el("span", "badge " + cls, text);
    into.appendChild(span);
    into.appendChild(document.createTextNode(" "));
    return span;
  }

  // card builds the card of entry e as the page's template does.
  function card(e) {
    var id = e[0], ns = e[2], li = el("li", "card");
    if (e[10]) {
      var img = el("img", "icon");
      img.setAttribute("src", e[10]);
      img.setAttribute("alt", "");
      img.setAttribute("width", "48");
      img.setAttribute("height", "48");
      li.appendChild(img);
    } else {
      var none = el("span", "icon none");
      none.setAttribute("aria-hidden", "true");
      li.appendChild(none);
    }
    var body = el("div", "body");
    var h = el("h2", "name");
    h.appendChild(link("ext/" + id.toLowerCase() + ".html", e[1]));
    body.appendChild(h);
    var p = el("p", "id");
    p.appendChild(el("code", "", id));
    p.appendChild(document.createTextNode(" by "));
    p.appendChild(link("publisher/" + ns.toLowerCase() + ".html", ns));
    p.appendChild(document.createTextNode(" \u00b7 v" + e[9] + (e[11] ? " (pre-release)" : "")));
    body.appendChild(p);
    if (e[3]) {
      body.appendChild(el("p", "desc", e[3]));
    }
    var meta = el("p", "meta");
    e[5].forEach(function (c, k) {
      if (k) { meta.appendChild(document.createTextNode(", ")); }
      meta.appendChild(link(data.cats[c] || "index.html#categories", c));
    });
    if (e[5].length) { meta.appendChild(document.createTextNode(" \u00b7 ")); }
    meta.appendChild(el("span", "plats", e[6].join(", ")));
    body.appendChild(meta);
    var b = el("p", "badges"), declared = [], detected = [];
    e[7].forEach(function (v) {
      if (v.lastIndexOf("declared:", 0) === 0) { declared.push(v.slice(9)); }
      if (v.lastIndexOf("detected:", 0) === 0) { detected.push(v.slice(9)); }
    });
    if (declared.length) { badge("cap", "declares " + declared.join(", "), b); }
    if (detected.length) { badge("det", "detected " + detected.join(", "), b); }
    if (e[13]) {
      badge("local", "added locally", b).setAttribute("title", e[13]);
    }
    if (e[14]) {
      badge(e[14] === "malicious" ? "bad" : "warn", e[14], b).setAttribute("title", e[15]);
    }
    if (e[12] === "all") {
      badge("ok", "upstream-signed", b);
    } else if (e[12] === "some") {
      badge("warn", "partly upstream-signed", b);
    } else if (!e[13]) {
      badge("warn", "not upstream-signed", b);
    }
    b.appendChild(el("span", data.verified ? "badge ok" : "badge bad", data.verified ? "catalog verified" : "catalog not verified"));
    body.appendChild(b);
    li.appendChild(body);
    return li;
  }

  function anyPrefix(arr, t) {
    for (var k = 0; k < arr.length; k++) {
      if (arr[k].lastIndexOf(t, 0) === 0) {
        return true;
      }
    }
    return false;
  }
  // termScore ranks where a term matches: the lower the better; -1 none.
  function termScore(it, t) {
    if (it.id === t) { return 0; }
    if (it.id.lastIndexOf(t, 0) === 0) { return 1; }
    if (it.name.lastIndexOf(t, 0) === 0) { return 2; }
    if (it.dn.lastIndexOf(t, 0) === 0 || anyPrefix(it.dnw, t)) { return 3; }
    if (it.pub.lastIndexOf(t, 0) === 0) { return 4; }
    if (anyPrefix(it.tags, t)) { return 5; }
    if (anyPrefix(it.desc, t)) { return 6; }
    return -1;
  }

  // update shows the matching cards, best first, the first limit of
  // them, built from the index into #results; the page's own first cards
  // stay hidden, so a search never lays out more than it shows.
  function update() {
    var query = q.value.trim().toLowerCase();
    var terms = query.split(/\s+/).filter(Boolean);
    var cat = category.value, plat = platform.value, cap = capability.value;
    var byDate = sort.value === "date";
    var hits = [];
    for (var n = 0; n < items.length; n++) {
      var it = items[n];
      if ((cat && it.cats.indexOf(cat) < 0) || (plat && it.plats.indexOf(plat) < 0) || (cap && it.caps.indexOf(cap) < 0)) {
        continue;
      }
      var score = 0;
      if (terms.length) {
        if (it.id === query) {
          score = -1;
        } else {
          for (var k = 0; k < terms.length; k++) {
            var s = termScore(it, terms[k]);
            if (s < 0) { score = -2; break; }
            score += s;
          }
          if (score === -2) { continue; }
        }
      }
      hits.push({ it: it, score: score });
    }
    hits.sort(function (a, b) {
      if (a.score !== b.score) { return a.score - b.score; }
      if (byDate && a.it.date !== b.it.date) { return b.it.date - a.it.date; }
      return a.it.i - b.it.i; // the page's order: by name
    });
    var shown = Math.min(hits.length, limit);
    var frag = document.createDocumentFragment();
    for (var m = 0; m < shown; m++) {
      frag.appendChild(card(hits[m].it.e));
    }
    results.textContent = "";
    results.appendChild(frag);
    list.hidden = true;
    results.hidden = false;
    if (browse) { browse.hidden = true; }
    moreWrap.hidden = shown >= hits.length;
    more.textContent = "Show more (" + (hits.length - shown) + " left)";
    var filtered = terms.length || cat || plat || cap;
    status.textContent = (filtered ? hits.length + " of " + total : total) + " extensions" +
      (shown < hits.length ? ", showing the first " + shown : "");
  }

  function show() {
    active = true;
    load(update);
  }
  function changed() {
    limit = PAGE;
    show();
  }
  form.addEventListener("submit", function (ev) { ev.preventDefault(); changed(); });
  q.addEventListener("input", changed);
  q.addEventListener("focus", function () { load(null); });
  [category, platform, capability, sort].forEach(function (el) { el.addEventListener("change", changed); });
  more.addEventListener("click", function () {
    limit = active ? limit + PAGE : 2 * PAGE;
    show();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "/" && document.activeElement !== q && !/^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName)) {
      ev.preventDefault();
      q.focus();
    }
  });
  if (browse) {
    // More than the first page: "Show more" loads the rest.
    more.textContent = "Show more";
    moreWrap.hidden = false;
  }
  // The browser may have restored the form on back navigation.
  if (q.value.trim() || category.value || platform.value || capability.value || sort.value !== "name") {
    changed();
  }
  // Load the index once the page is shown, so that search is instant.
  function idle() {
    setTimeout(function () { load(null); }, 0);
  }
  if (document.readyState === "complete") {
    idle();
  } else {
    window.addEventListener("load", idle);
  }
})();
