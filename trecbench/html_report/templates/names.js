// A name read from an input (class "name": a run's, a topic's, a mode's) with a word of
// more than 20 characters wraps anywhere in its table cell (class "long-words", set
// here), so that an id of 300 characters cannot widen the page. Others keep their words
// whole (page.css, without scripts too: at 1,280 px "Lexical+Rerank" had broken mid-word
// beside a wide column of text, a table giving such a column little of the room it has):
// the table makes room for them, or scrolls in its box.
// Every .name at load; trecbenchWholeWords(element) for those drawn later.
window.trecbenchWholeWords = (function () {
  "use strict";
  var LONGEST = 20;  // characters (code points) of a word kept whole
  function short(word) { return Array.from(word).length <= LONGEST; }
  function wholeWords(root) {
    Array.prototype.forEach.call(root.querySelectorAll(".name"), function (cell) {
      cell.classList.toggle("long-words", !cell.textContent.split(/\s+/).every(short));
    });
  }
  wholeWords(document);
  return wholeWords;
}());
// Copied, a name drawn between the page's isolates (U+2068 and U+2069 around a name that
// reads right to left, escaping.isolated_text; the name's own are escaped, %E2%81%A8)
// is the name as read: pasted into a shell or a search of the qrels, "\u2068ب1\u2069"
// matched no topic ب1. The plain text and the HTML (a spreadsheet's paste: a part of a
// table stays a table) both, without the marks; a selection without them is the browser's.
(function () {
  "use strict";
  var MARK = /[\u2068\u2069]/, MARKS = /[\u2068\u2069]/g;
  function markup(range) {  // the range's HTML, a table's rows or cells within a table
    var part = range.cloneContents(), node = range.commonAncestorContainer;
    if (node.nodeType !== 1) { node = node.parentNode; }
    var tag = node.nodeName, table = document.createElement("table");
    if (tag === "TR") {
      table.appendChild(document.createElement("tr")).appendChild(part);
    } else if (/^(TABLE|THEAD|TBODY|TFOOT)$/.test(tag)) {
      table.appendChild(part);
    } else {
      table = part;
    }
    var box = document.createElement("div");
    box.appendChild(table);
    return box.innerHTML;
  }
  document.addEventListener("copy", function (event) {
    var selection = window.getSelection(), selected = String(selection);
    if (!event.clipboardData || !MARK.test(selected)) { return; }
    var html = "";
    for (var i = 0; i < selection.rangeCount; i += 1) { html += markup(selection.getRangeAt(i)); }
    event.clipboardData.setData("text/plain", selected.replace(MARKS, ""));
    event.clipboardData.setData("text/html", html.replace(MARKS, ""));
    event.preventDefault();
  });
}());
