// The figures out of the Tab order, and the later measures' figures drawn when chosen.
// Bokeh makes 8 Tab stops of each figure (its canvas's event layer, 7 toolbar buttons),
// unnamed and inside an image (role="img"): 117 of the bundled demo's 135 Tab stops were
// its figures'. The pointer still uses the tools; a keyboard reaches the tables, where the
// figures' numbers are. Chromium draws a figure in some 0.45 s: the page draws the figures
// of its first measures as it opens, another measure's when the selector chooses it.
(function () {
  "use strict";
  var box = document.querySelector(".figures");
  function untab(node) {
    Array.prototype.forEach.call(node.querySelectorAll("*"), function (element) {
      if (element.tabIndex >= 0) { element.tabIndex = -1; }
      if (element.shadowRoot) { untab(element.shadowRoot); }
    });
  }
  // once the document's figures are drawn (idle), their elements made
  function untabbedWhenIdle(doc, node) {
    if (doc.is_idle) { untab(node); } else { doc.idle.connect(function () { untab(node); }); }
  }
  function untabFirst() {  // Bokeh's document is made once Bokeh is loaded and the DOM read
    if (!window.Bokeh || !Bokeh.documents || !Bokeh.documents.length) {
      setTimeout(untabFirst, 20);
      return;
    }
    untabbedWhenIdle(Bokeh.documents[0], box);
  }
  if (box && box.querySelector(".figure:not([hidden])")) { untabFirst(); }
  var select = document.getElementById("figure-measure");
  var items = document.getElementById("figure-items");
  if (!select || !items) { return; }
  // a later measure's figures: a copy of each kind's template (Bokeh's JSON, made once by
  // later.py) filled in with the measure's titles, means and per-topic differences
  var later = JSON.parse(items.textContent), data = null, drawn = {};
  var numbers = window.trecbenchNumbers;
  function own(object, key) { return object && Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined; }
  // a run's values on a topic: an array in the order of data.measures (null: no value)
  function value(qid, run, at) { var row = own(own(data.values, qid), run), v = row ? row[at] : undefined; return v === undefined ? null : v; }
  // as Python's _four: four decimals (a difference signed), n/a for none
  function four(v, sign) { return v === null || v !== v ? "n/a" : (sign ? numbers.signed(v) : numbers.fixed(v)); }
  function fours(values, sign) { return values.map(function (v) { return four(v, sign); }); }
  // Python's order of strings, by code point (UTF-16's differs past U+FFFF)
  function byCodePoint(a, b) {
    var x = Array.from(a), y = Array.from(b);
    for (var i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] !== y[i]) { return x[i].codePointAt(0) - y[i].codePointAt(0); }
    }
    return x.length - y.length;
  }
  function columns(named) { return { data: { type: "map", entries: Object.keys(named).map(function (k) { return [k, named[k]]; }) } }; }
  function meansFill(record) {
    var mean = [], low = [], high = [];
    record.means.forEach(function (row) {
      mean.push(row[0] === null ? NaN : row[0]); low.push(row[1] === null ? NaN : row[1]); high.push(row[2] === null ? NaN : row[2]);
    });
    return { "trecbench-title": { text: record.titles[0] }, "trecbench-measure-label": { text: record.measure },
      "trecbench-means": columns({ row: later.runs.map(function (r, at) { return at; }), run: later.runs.slice(),
        mean: mean, low: low, high: high, mean_text: fours(record.means.map(function (r) { return r[0]; })),
        low_text: fours(record.means.map(function (r) { return r[1]; })), high_text: fours(record.means.map(function (r) { return r[2]; })) }) };
  }
  // each run's per-topic differences against the baseline, sorted by difference, then topic
  // (figures.py's differences_figure)
  function differencesFill(record) {
    var measure = record.measure, at = data.measures.indexOf(measure), fill = { "trecbench-title": { text: record.titles[1] },
      "trecbench-measure-label": { text: measure + " difference" } };
    data.runs.filter(function (r) { return r !== data.baseline; }).forEach(function (run, index) {
      var points = [];
      data.topics.forEach(function (qid) {
        var v = value(qid, run, at), b = value(qid, data.baseline, at);
        if (v !== null && b !== null) { points.push([qid, v, b, numbers.difference(v, b, data.tie_within)]); }
      });
      points.sort(function (p, q) { return p[3] < q[3] ? -1 : p[3] > q[3] ? 1 : byCodePoint(p[0], q[0]); });
      function column(at) { return points.map(function (p) { return p[at]; }); }
      fill["trecbench-differences-" + index] = columns({
        x: points.map(function (p, at) { return at + 1; }), qid: column(0), value: column(1), base: column(2),
        difference: column(3), run: points.map(function () { return run; }), value_text: fours(column(1)),
        base_text: fours(column(2)), difference_text: fours(column(3), true) });
    });
    return fill;
  }
  // a copy of Bokeh's JSON, each model's id its own (prefix), the models named in fill
  // given its attributes
  function filled(node, prefix, fill) {
    if (Array.isArray(node)) { return node.map(function (item) { return filled(item, prefix, fill); }); }
    if (node === null || typeof node !== "object") { return node; }
    var copy = {};
    Object.keys(node).forEach(function (key) {
      var made = key === "id" && typeof node[key] === "string" ? prefix + node[key] : filled(node[key], prefix, fill);
      Object.defineProperty(copy, key, { value: made, enumerable: true, writable: true, configurable: true });
    });
    var name = node.type === "object" && node.attributes ? node.attributes.name : undefined;
    if (typeof name === "string" && own(fill, name)) { Object.assign(copy.attributes, fill[name]); }
    return copy;
  }
  function draw(record, kind, target, figure) {
    if (data === null) { data = JSON.parse(document.getElementById("report-data").textContent); }
    var template = later.templates[kind], prefix = target.id + "-";
    var fill = kind === "means" ? meansFill(record) : differencesFill(record);
    var item = { doc: filled(template.doc, prefix, fill), root_id: prefix + template.root_id, target_id: target.id };
    Bokeh.embed.embed_item(item, target.id).then(function () {
      var doc = Bokeh.documents.find(function (made) {
        return made.roots().some(function (root) { return root.id === item.root_id; });
      });
      untabbedWhenIdle(doc, figure);
    });
  }
  select.addEventListener("change", function () {
    var record = later.measures[Number(select.value)], at = 0;
    Array.prototype.forEach.call(box.querySelectorAll(".figure[data-measure]"), function (figure) {
      var chosen = figure.getAttribute("data-measure") === select.value;
      figure.hidden = !chosen;
      var target = figure.firstElementChild;
      if (chosen && !drawn[target.id]) {  // drawn once
        drawn[target.id] = true;
        draw(record, later.kinds[at], target, figure);
      }
      at += chosen ? 1 : 0;
    });
  });
}());
