// The airvsx site's one script: instant search, filters and sort on the
// home page, over window.AIRVSX_INDEX (assets/search-index.js; a script,
// because browsers refuse fetch() of local files). No framework, no
// network. Without this script every page still works: the home page
// lists every extension.
(function () {
  "use strict";
  var data = window.AIRVSX_INDEX;
  var form = document.getElementById("search");
  var list = document.getElementById("cards");
  var results = document.getElementById("results");
  if (!data || !form || !list || !results) {
    return;
  }
  var LIMIT = 200;
  var q = document.getElementById("q");
  var category = document.getElementById("category");
  var platform = document.getElementById("platform");
  var capability = document.getElementById("capability");
  var sort = document.getElementById("sort");
  var status = document.getElementById("status");
  var moreWrap = document.getElementById("more-wrap");
  var more = document.getElementById("more");
  var cards = list.children;
  var total = data.entries.length;
  var showAll = false;

  function words(s) {
    return s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  }
  function lowerAll(a) {
    return a.map(function (s) { return s.toLowerCase(); });
  }
  // Precomputed, lower-cased fields of each entry.
  var items = data.entries.map(function (e, i) {
    var id = e[0].toLowerCase();
    return {
      i: i, id: id, name: id.slice(id.indexOf(".") + 1), dn: e[1].toLowerCase(), dnw: words(e[1]),
      pub: e[2].toLowerCase(), desc: words(e[3]), tags: lowerAll(e[4]), cats: e[5], plats: e[6],
      caps: e[7], date: e[8]
    };
  });

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

  // update shows the matching cards, best first, at most LIMIT of them
  // unless "Show all" was pressed. It always works on clones in #results:
  // the full list stays hidden, so a search never lays out every card.
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
    var shown = showAll ? hits.length : Math.min(hits.length, LIMIT);
    var frag = document.createDocumentFragment();
    for (var m = 0; m < shown; m++) {
      frag.appendChild(cards[hits[m].it.i].cloneNode(true));
    }
    results.textContent = "";
    results.appendChild(frag);
    moreWrap.hidden = shown >= hits.length;
    more.textContent = "Show all " + hits.length;
    var filtered = terms.length || cat || plat || cap;
    status.textContent = (filtered ? hits.length + " of " + total : total) + " extensions" +
      (shown < hits.length ? ", showing the first " + shown : "");
  }

  function changed() {
    showAll = false;
    update();
  }
  form.addEventListener("submit", function (ev) { ev.preventDefault(); changed(); });
  q.addEventListener("input", changed);
  [category, platform, capability, sort].forEach(function (el) { el.addEventListener("change", changed); });
  more.addEventListener("click", function () { showAll = true; update(); });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "/" && document.activeElement !== q && !/^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName)) {
      ev.preventDefault();
      q.focus();
    }
  });
  // From here on the script shows the cards (the browser may also have
  // restored the form on back navigation).
  list.hidden = true;
  results.hidden = false;
  update();
})();
