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
  items = JSON.parse(items.textContent);
  select.addEventListener("change", function () {
    Array.prototype.forEach.call(box.querySelectorAll(".figure[data-measure]"), function (figure) {
      var chosen = figure.getAttribute("data-measure") === select.value;
      figure.hidden = !chosen;
      var target = figure.firstElementChild;
      if (chosen && items[target.id]) {  // drawn once
        var item = items[target.id];
        delete items[target.id];
        Bokeh.embed.embed_item(item, target.id).then(function () {
          var doc = Bokeh.documents.find(function (made) {
            return made.roots().some(function (root) { return root.id === item.root_id; });
          });
          untabbedWhenIdle(doc, figure);
        });
      }
    });
  });
}());
