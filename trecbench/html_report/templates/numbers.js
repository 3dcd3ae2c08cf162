// Numbers as the page's Python writes them, for its scripts (the topics table, the later
// measures' figures): four decimals as trec_eval's printf rounds them, an exact half to
// even (toFixed rounds it up: 0.03125 would read 0.0313, not 0.0312); a value that is not 0
// but would read 0.0000, with two significant digits in scientific notation (1.7e-15), as
// Python's number_text.value_text writes it.
(function () {
  "use strict";
  function fixed(v) {
    if (v === null) { return "n/a"; }  // as Python's tables and the figures' write none
    var shown = decimals(v);
    // Python's exponent has two digits at least: 4.9e-05, where toExponential writes 4.9e-5
    return v !== 0 && Number(shown) === 0 ? v.toExponential(1).replace(/e([+-])(\d)$/, "e$10$2") : shown;
  }
  function decimals(v) {
    // printf's %.4f: a negative zero keeps its sign, and a double of 1e21 or more (an
    // integer) is written out in full, not in toFixed's exponent form
    if (v === 0 && 1 / v < 0) { return "-0.0000"; }
    if (Math.abs(v) >= 1e21 && isFinite(v)) { return BigInt(v).toString() + ".0000"; }
    var shown = v.toFixed(4), exact = Math.abs(v) < 1e21 ? v.toFixed(100) : "", cut = exact.indexOf(".") + 5;
    var half = exact !== "" && /^50*$/.test(exact.slice(cut));
    return half && "02468".indexOf(exact.charAt(cut - 1)) >= 0 ? exact.slice(0, cut) : shown;
  }
  // a difference as the page's tables print it: signed, but 0 unsigned
  function signed(d) {
    if (d === null) { return "n/a"; }
    var shown = fixed(d);
    return Number(shown) === 0 ? shown.replace("-", "") : (d > 0 ? "+" : "") + shown;
  }
  // a run's difference from the baseline on a topic: 0 within the rounding of the two
  // values (within: the page data's tie_within, a share of the larger, of 1 above 1), as
  // the statistics count it a tie, not -5.6e-17 (Python's rounding.per_topic_zero)
  function difference(a, b, within) {
    if (a === null || b === null) { return null; }
    var size = Math.min(Math.max(Math.abs(a), Math.abs(b)), 1);
    return Math.abs(a - b) <= within * size ? 0 : a - b;
  }
  window.trecbenchNumbers = { fixed: fixed, signed: signed, difference: difference };
}());
