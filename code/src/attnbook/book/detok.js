// French tokens joined back into text: attnbook.nmt.text.detokenize_french, rule for rule, so that the
// page prints what `python -m attnbook translate` prints. One table of cases (tests/data/detok_cases.json)
// checks both.
//
//   - an elided word (j', qu', l') is glued to the next word;
//   - "." "," ")" are glued to the previous token, "(" to the next, and a hyphen to both of its neighbours
//     (the tokeniser splits allons-nous and a-t-il at every "-");
//   - a comma between two numbers is a decimal comma (3,5);
//   - a straight double quote opens, then closes;
//   - "!" "?" ":" ";" and the closing guillemet keep the space French typography puts before them, the
//     opening guillemet the space after it.
// Case is kept as the tokens have it. restoreCase (attnbook.nmt.text.restore_case) puts capitals back
// into a lower-cased model's tokens first: the spellings of the casing table its weights file carries
// (tom -> Tom), and a capital at the start of each sentence. tests/data/recase_cases.json checks both.
//
// The file defines one global, attnbookDetok; under Node (for tests) it exports the same object.
((global) => {
  "use strict";

  const GLUE_BEFORE = new Set([".", ",", ")", "-"]);
  const GLUE_AFTER = new Set(["(", "-"]);
  const isDigit = (character) => character !== undefined && /[0-9]/.test(character);

  function detokenizeFrench(tokens) {
    let text = "";
    let quoteOpen = false;
    tokens.forEach((token, k) => {
      const previous = k ? tokens[k - 1] : "";
      const glued =
        k === 0 ||
        GLUE_BEFORE.has(token) ||
        GLUE_AFTER.has(previous) ||
        (previous.endsWith("'") && previous.length > 1) ||
        (previous === "," && k >= 2 && isDigit(tokens[k - 2].slice(-1)) && isDigit(token[0])) ||
        (token === '"' && quoteOpen) ||
        (previous === '"' && quoteOpen);
      if (token === '"') quoteOpen = !quoteOpen;
      text += glued ? token : " " + token;
    });
    return text;
  }

  const SENTENCE_ENDS = new Set([".", "!", "?", "\u2026"]);
  const hasLetterOrDigit = (token) => /[\p{L}\p{N}]/u.test(token);
  const startsWithLetter = (token) => /^\p{L}/u.test(token);

  function restoreCase(tokens, casing) {
    let starting = true;
    return tokens.map((word) => {
      let token = Object.hasOwn(casing, word) ? casing[word] : word;
      if (starting && hasLetterOrDigit(token)) {
        if (startsWithLetter(token)) token = token.charAt(0).toUpperCase() + token.slice(1);
        starting = false;
      }
      if (SENTENCE_ENDS.has(token)) starting = true;
      return token;
    });
  }

  const api = { detokenizeFrench, restoreCase };
  if (typeof module === "object" && module.exports) module.exports = api;
  else global.attnbookDetok = api;
})(typeof globalThis === "object" ? globalThis : this);
