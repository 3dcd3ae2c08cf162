// The figures on paper. Bokeh sizes a canvas to its box when the window is resized, and
// printing resizes nothing: printed from a wide window, a canvas kept its 1,180 px on a
// page some 740 px wide (Letter's, less the margins), its right part cut off. Before
// printing, each figure is laid out again at the figures' data-print-width (the least
// width their titles and legends are laid out for) and drawn into a plain canvas that the
// paper shows instead of Bokeh's (Chromium prints a Bokeh canvas redrawn while printing
// starts blank: the copy's one drawImage prints); after printing, the screen's again.
(function () {
  "use strict";
  var box = document.querySelector(".figures");
  function figureViews() {
    if (!box || !window.Bokeh || !Bokeh.index || !Bokeh.index.roots) { return []; }
    return Array.from(Bokeh.index.roots).filter(function (view) {
      // not a later measure's figures hidden when another was chosen (figures.js)
      var figure = view.el.closest(".figure");
      return typeof view.export === "function" && figure !== null && !figure.hidden;
    });
  }
  // each figure laid out at the box's width now (Bokeh's own layout waits for a resize
  // observed between frames: none is while printing, and a width set back before the next
  // frame is no resize at all)
  function laidOut(views, width) {
    box.style.width = width;
    views.forEach(function (view) { view.invalidate_layout(); view.repaint(); });
  }
  function removeCopies() {
    Array.prototype.forEach.call(box.querySelectorAll("canvas.on-paper"), function (copy) { copy.remove(); });
  }
  window.addEventListener("beforeprint", function () {
    var views = figureViews();
    if (!views.length) { return; }
    removeCopies();  // a second beforeprint without an afterprint between drew them twice
    laidOut(views, box.getAttribute("data-print-width") + "px");
    views.forEach(function (view) {
      var drawn = view.export("png").canvas, copy = document.createElement("canvas");
      copy.width = drawn.width; copy.height = drawn.height;
      copy.style.width = view.bbox.width + "px";  // drawn at the screen's pixel ratio
      copy.className = "on-paper";
      copy.getContext("2d").drawImage(drawn, 0, 0);
      var figure = view.el.closest(".figure");
      figure.insertBefore(copy, figure.firstChild);
    });
  });
  window.addEventListener("afterprint", function () {
    removeCopies();
    laidOut(figureViews(), "");
  });
}());
