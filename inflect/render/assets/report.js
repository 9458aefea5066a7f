// The ambiguity report (inflect.render.report_html): sorting, filtering and attention maps on demand.
// Inlined into the page; builds every element with the DOM API and user text with textContent,
// never with innerHTML, so lemmas and forms stay text.
(function () {
  "use strict";
  var doc = document;
  var SVG = "http://www.w3.org/2000/svg";
  var items = Array.prototype.slice.call(doc.querySelectorAll("li.inp"));
  var data = doc.getElementById("maps");
  var maps = data ? JSON.parse(data.textContent) : [];
  var controls = doc.getElementById("controls");
  var flat = doc.getElementById("flat");
  var shown = doc.getElementById("shown");

  function num(li, key) {
    return key === "i" ? parseInt(li.id.slice(1), 10) : parseFloat(li.getAttribute("data-" + key));
  }

  var ORDERS = {
    input: function (a, b) { return num(a, "i") - num(b, "i"); },
    "forms-desc": function (a, b) { return num(b, "n") - num(a, "n") || ORDERS.input(a, b); },
    "forms-asc": function (a, b) { return num(a, "n") - num(b, "n") || ORDERS.input(a, b); },
    "entropy-desc": function (a, b) { return num(b, "h") - num(a, "h") || ORDERS.input(a, b); },
    "entropy-asc": function (a, b) { return num(a, "h") - num(b, "h") || ORDERS.input(a, b); },
    "best-asc": function (a, b) { return num(a, "b") - num(b, "b") || ORDERS.input(a, b); }
  };

  function apply() {
    var bundle = controls.elements.bundle.value;
    var gold = controls.elements.gold.value;
    var least = parseInt(controls.elements.least.value, 10) || 0;
    var grouped = controls.elements.grouped.checked;
    var order = ORDERS[controls.elements.order.value] || ORDERS.input;
    var sorted = items.slice().sort(order);
    var visible = 0;
    sorted.forEach(function (li) {
      var ok = (bundle === "" || li.getAttribute("data-g") === bundle) &&
        (gold === "" || li.getAttribute("data-gold") === gold) && num(li, "n") >= least;
      li.hidden = !ok;
      visible += ok ? 1 : 0;
      var home = doc.getElementById(grouped ? "l" + li.getAttribute("data-g") : "lflat");
      home.appendChild(li);
    });
    flat.hidden = grouped;
    Array.prototype.forEach.call(doc.querySelectorAll("section.group"), function (s) {
      s.hidden = !grouped || !s.querySelector("li.inp:not([hidden])");
    });
    shown.textContent = "showing " + visible + " of " + items.length + " inputs";
  }

  function el(name, attrs, text) {
    var node = doc.createElementNS(SVG, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  // weight in (0, 1] -> fill; the same scale as the legend. Exact zeros are never drawn.
  function fill(w) { return "hsl(214, 75%, " + (94 - 64 * w).toFixed(1) + "%)"; }

  // weights in thousandths, two base-64 digits each (inflect.render.report_html.encode_weights)
  var DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  function decode(text) {
    var out = [];
    for (var k = 0; k < text.length; k += 2) {
      out.push(DIGITS.indexOf(text[k]) * 64 + DIGITS.indexOf(text[k + 1]));
    }
    return out;
  }

  function percent(milli) { return milli < 5 ? "<1" : String(Math.round(milli / 10)); }

  function panel(map, p) {
    var cell = 22, src = map.s, rows = p.t.length, cols = src.length, w = decode(p.w);
    var left = 12 + 8 * Math.max.apply(null, p.t.map(function (t) { return t.length; }));
    var top = 40, width = left + cols * cell + 8, height = top + rows * cell + 4;
    var svg = el("svg", {width: width, height: height, viewBox: "0 0 " + width + " " + height,
                         role: "img"});
    svg.appendChild(el("title", {}, "attention of " + p.f + " (p = " + p.q + ")"));
    svg.appendChild(el("text", {x: 0, y: 12, "font-weight": "bold"}, p.f + "  p = " + p.q));
    function x(j) { return left + (map.d === "rtl" ? cols - 1 - j : j) * cell; }
    src.forEach(function (s, j) {
      svg.appendChild(el("text", {x: x(j) + cell / 2, y: top - 6, "text-anchor": "middle",
                                  "class": "mono"}, s === " " ? "␣" : s));
    });
    p.t.forEach(function (t, i) {
      svg.appendChild(el("text", {x: left - 6, y: top + i * cell + 15, "text-anchor": "end",
                                  "class": "mono"}, t === " " ? "␣" : t));
      for (var j = 0; j < cols; j++) {
        var m = w[i * cols + j];
        if (m === 0) { continue; }  // exact zero: blank
        var g = el("g", {});
        g.appendChild(el("rect", {x: x(j) + 0.5, y: top + i * cell + 0.5, width: cell - 1,
                                  height: cell - 1, fill: fill(m / 1000)}));
        g.appendChild(el("text", {x: x(j) + cell / 2, y: top + i * cell + 15,
                                  "text-anchor": "middle", "font-size": "9",
                                  "class": m > 550 ? "on-dark" : "on-light"}, percent(m)));
        g.appendChild(el("title", {}, t + " ← " + src[j] + ": " + (m / 1000).toFixed(3)));
        svg.appendChild(g);
      }
    });
    var frame = el("rect", {x: left, y: top, width: cols * cell, height: rows * cell,
                            fill: "none", stroke: "#d1d9e0"});
    svg.appendChild(frame);
    return svg;
  }

  function legend() {
    var svg = el("svg", {width: 230, height: 40, role: "img"});
    svg.appendChild(el("title", {}, "colour scale: attention weight, blank = exactly 0"));
    [0.01, 0.25, 0.5, 0.75, 1].forEach(function (w, k) {
      svg.appendChild(el("rect", {x: 8 + 40 * k, y: 4, width: 38, height: 14, fill: fill(w)}));
      svg.appendChild(el("text", {x: 27 + 40 * k, y: 32, "text-anchor": "middle"},
                         String(w)));
    });
    return svg;
  }

  function toggle(li, button) {
    var box = li.querySelector(".map");
    if (box.firstChild) {
      box.textContent = "";
      button.setAttribute("aria-expanded", "false");
      return;
    }
    var map = maps[parseInt(li.getAttribute("data-k"), 10)];
    map.p.forEach(function (p) { box.appendChild(panel(map, p)); });
    var note = doc.createElement("p");
    note.className = "dim";
    note.textContent = "attention weight in % (rows: output symbols, columns: lemma symbols; " +
      "blank: exactly zero)";
    box.appendChild(note);
    box.appendChild(legend());
    button.setAttribute("aria-expanded", "true");
  }

  items.forEach(function (li) {
    var button = li.querySelector("button.att");
    if (!button) { return; }
    button.hidden = false;
    button.addEventListener("click", function () { toggle(li, button); });
  });
  if (controls) {
    // report.html?bundle=2&gold=out&least=3&order=entropy-desc&grouped=0 opens a chosen view
    var params = new URLSearchParams(location.search);
    ["bundle", "gold", "least", "order"].forEach(function (name) {
      if (params.has(name)) { controls.elements[name].value = params.get(name); }
    });
    if (params.get("grouped") === "0") { controls.elements.grouped.checked = false; }
    controls.hidden = false;
    controls.addEventListener("change", apply);
    controls.addEventListener("input", apply);
    controls.addEventListener("submit", function (e) { e.preventDefault(); });
    apply();
  }
  // report.html#i12 opens that input's attention map
  var target = location.hash ? doc.getElementById(location.hash.slice(1)) : null;
  if (target && target.classList.contains("inp") && target.querySelector("button.att")) {
    toggle(target, target.querySelector("button.att"));
    target.scrollIntoView();
  }
  doc.documentElement.setAttribute("data-ready", "1");
}());
