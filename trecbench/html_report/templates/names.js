// A name read from an input (class "name": a run's, a topic's, a mode's) wraps anywhere in
// its table cell (page.css), so that an id of 300 characters cannot widen the page; but
// a table gives such a column little of the room it has (the width each column may lose
// to wrapping, 6em), and at 1,280 px "Lexical+Rerank" broke mid-word beside a wide
// column of text. A name whose words are all of at most 20 characters keeps its words
// whole (class "whole-words"): the table makes room for them, or scrolls in its box.
// Every .name at load; trecbenchWholeWords(element) for those drawn later.
window.trecbenchWholeWords = (function () {
  "use strict";
  var LONGEST = 20;  // characters (code points) of a word kept whole
  function short(word) { return Array.from(word).length <= LONGEST; }
  function wholeWords(root) {
    Array.prototype.forEach.call(root.querySelectorAll(".name"), function (cell) {
      cell.classList.toggle("whole-words", cell.textContent.split(/\s+/).every(short));
    });
  }
  wholeWords(document);
  return wholeWords;
}());
