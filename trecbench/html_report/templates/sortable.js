// Tables sortable by any column: click a header, or press Enter on it (a cell's data-sort,
// else its text; empty cells last). A column whose header is of class "text" (ids, names)
// sorts as text, by code point ("10-a" is no 10, "1e3" no 1000); another by the number
// each cell starts with ("9.3667a": a mean and its significance letters), else as text.
// A column of names or ids read from an input (runs, topics) sorts by each cell's
// data-order, the name's place in the code-point order of the names as read: the page
// shows them escaped and isolated (%E2%80%AEz, U+2068 before an Arabic name), which would
// sort otherwise (%E2%80%AEz before b).
// Every table.sortable at load; trecbenchSortable(table) for a table drawn later.
window.trecbenchSortable = (function () {
  "use strict";
  function cellKey(cell) { return cell.getAttribute("data-sort") !== null ? cell.getAttribute("data-sort") : cell.textContent; }
  // by code point, as Python sorts the page's first order: "<" compares UTF-16 units,
  // which put U+10000 on (two units from 0xD800) before U+E000-U+FFFF (qＡ after q😀)
  function byCodePoint(x, y) {
    for (var i = 0; i < x.length && i < y.length; i += x.codePointAt(i) > 0xFFFF ? 2 : 1) {
      var a = x.codePointAt(i), b = y.codePointAt(i);
      if (a !== b) { return a < b ? -1 : 1; }
    }
    return x.length - y.length;
  }
  function sortBy(table, index, header) {
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    var text = header.classList.contains("text");
    rows.sort(function (a, b) {
      var x = cellKey(a.cells[index]), y = cellKey(b.cells[index]);
      if (x === "" || y === "") { return (x === "") - (y === ""); }  // last either way
      var px = a.cells[index].getAttribute("data-order"), py = b.cells[index].getAttribute("data-order");
      if (px !== null && py !== null) { return ascending ? px - py : py - px; }
      var nx = text ? NaN : parseFloat(x), ny = text ? NaN : parseFloat(y);
      var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : byCodePoint(x, y);
      return ascending ? c : -c;
    });
    Array.prototype.forEach.call(header.parentNode.cells, function (th) { th.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    rows.forEach(function (row) { body.appendChild(row); });
  }
  function sortable(table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      th.tabIndex = 0;
      th.addEventListener("click", function () { sortBy(table, index, th); });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sortBy(table, index, th); } });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (t) {
    if (t.tHead && t.tHead.rows.length) { sortable(t); }
  });
  return sortable;
}());
