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
// matched no topic ب1.
document.addEventListener("copy", function (event) {
  "use strict";
  var selected = String(window.getSelection());
  if (!event.clipboardData || !/[\u2068\u2069]/.test(selected)) { return; }
  event.clipboardData.setData("text/plain", selected.replace(/[\u2068\u2069]/g, ""));
  event.preventDefault();
});
