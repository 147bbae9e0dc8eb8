// The toy grammar of attnbook.nmt.grammar, read backwards: given an English sentence, the French the
// grammar would write for it and the true alignment, or null when the grammar cannot make the sentence.
//
// ToyGrammar.sample draws a sentence by random choices; parse(tokens, lexicon) tries every choice that
// matches the typed words instead, in the same order and under the same rules: one to three clauses
// joined by a conjunction; a clause is a subject (an animate noun phrase) and a verb phrase; a noun
// phrase is an article, an adjective French puts first, one it puts after the noun, the noun, and for
// an animate noun perhaps a relative clause ("that"/"who" and a verb phrase); a verb phrase may be
// negated ("does not" -> "ne ... pas") and a transitive verb takes an object. The words and their French
// forms come from attnbook.nmt.grammar_lexicon(). Each French word records the English positions it
// translates and its category, as SentencePair does.
//
// The file defines one global, attnbookToyGrammar; under Node (for tests) it exports the same object.
((global) => {
  "use strict";

  // A partial parse: the next English position, the French words so far and the subject's number.
  // Each rule takes the parses so far and returns every way to continue them.

  function parse(tokens, lexicon) {
    // the adjectives of a list whose English word is the one at position k
    const find = (list, k) => list.filter((entry) => entry.en === tokens[k]);

    // SentencePair's builder: a French word, the English positions it renders, its category; "ne" and
    // "que" elide before a vowel ("n'aime", "qu'un"), keeping their links and category.
    const emit = (french, token, positions, category) => {
      const previous = french[french.length - 1];
      if (previous && lexicon.elisions[previous.token] && lexicon.vowels.includes(token[0])) {
        french = french
          .slice(0, -1)
          .concat([{ ...previous, token: lexicon.elisions[previous.token] }]);
      }
      return french.concat([{ token, positions, category }]);
    };

    // _noun_phrase: article, [adjective before], [adjective after], noun, [relative clause].
    function nounPhrase(state, { subject, definiteOnly, allowRelative }) {
      const found = [];
      const article = tokens[state.k];
      if (!["the", "a", "some"].includes(article) || (definiteOnly && article !== "the"))
        return found;
      const k = state.k + 1;
      const beforeOptions = [null, ...find(lexicon.adjectives_before, k)];
      for (const before of beforeOptions) {
        const afterStart = before ? k + 1 : k;
        const afterOptions = [null, ...find(lexicon.adjectives_after, afterStart)];
        for (const after of afterOptions) {
          const nounAt = after ? afterStart + 1 : afterStart;
          for (const noun of lexicon.nouns) {
            for (const plural of [false, true]) {
              if (tokens[nounAt] !== (plural ? noun.en_plural : noun.en)) continue;
              if (subject && !noun.animate) continue;
              if ((article === "a" && plural) || (article === "some" && !plural)) continue;
              // French would write "de petits chats": the grammar never makes that phrase
              if (article !== "the" && plural && before) continue;
              if ([before, after].some((a) => a?.animate_only && !noun.animate)) continue;
              const form = 2 * plural + noun.feminine;
              const articleFr =
                article === "the"
                  ? plural
                    ? "les"
                    : noun.feminine
                      ? "la"
                      : "le"
                  : plural
                    ? "des"
                    : noun.feminine
                      ? "une"
                      : "un";
              let french = emit(state.french, articleFr, [state.k], "article");
              if (before)
                french = emit(french, before.forms[form], [state.k + 1], "adjective_before");
              french = emit(french, plural ? noun.fr_plural : noun.fr, [nounAt], "noun");
              if (after) french = emit(french, after.forms[form], [afterStart], "adjective_after");
              const phrase = { k: nounAt + 1, french, plural };
              found.push(phrase);
              const pronoun = noun.human ? "who" : "that";
              if (allowRelative && noun.animate && tokens[phrase.k] === pronoun) {
                const relative = {
                  ...phrase,
                  k: phrase.k + 1,
                  french: emit(french, "qui", [phrase.k], "relative"),
                };
                for (const done of verbPhrase(relative, plural, false)) {
                  found.push({ ...done, plural });
                }
              }
            }
          }
        }
      }
      return found;
    }

    // _verb_phrase: [do/does not] verb [object noun phrase].
    function verbPhrase(state, plural, allowRelative) {
      const found = [];
      for (const negated of [false, true]) {
        let k = state.k;
        let negation = null;
        if (negated) {
          if (tokens[k] !== (plural ? "do" : "does") || tokens[k + 1] !== "not") continue;
          negation = [k, k + 1];
          k += 2;
        }
        for (const transitive of [true, false]) {
          const verbs = transitive ? lexicon.transitive : lexicon.intransitive;
          for (const verb of verbs) {
            const english = negated || plural ? verb.en_base : verb.en;
            if (!english.every((word, m) => tokens[k + m] === word)) continue;
            const positions = english.map((_, m) => k + m);
            const verbFr = plural ? verb.fr_plural : verb.fr;
            let french = state.french;
            if (negated) {
              french = emit(french, "ne", negation, "negation");
              french = emit(french, verbFr, positions, "verb");
              french = emit(french, "pas", negation, "negation");
            } else {
              french = emit(french, verbFr, positions, "verb");
            }
            const after = { k: k + english.length, french };
            if (!transitive) {
              found.push(after);
              continue;
            }
            const options = { subject: false, definiteOnly: negated, allowRelative };
            for (const object of nounPhrase(after, options)) {
              found.push({ k: object.k, french: object.french });
            }
          }
        }
      }
      return found;
    }

    // _clause: a subject and its verb phrase.
    function clause(state) {
      const options = { subject: true, definiteOnly: false, allowRelative: true };
      return nounPhrase(state, options).flatMap((subject) =>
        verbPhrase(subject, subject.plural, true),
      );
    }

    // sample: one to three clauses, joined by a conjunction.
    let states = clause({ k: 0, french: [] });
    const complete = states.filter((state) => state.k === tokens.length);
    for (let more = 0; more < 2 && !complete.length; more++) {
      states = states.flatMap((state) => {
        const conjunction = lexicon.conjunctions[tokens[state.k]];
        if (!conjunction) return [];
        let french = state.french;
        for (const word of conjunction) french = emit(french, word, [state.k], "conjunction");
        return clause({ k: state.k + 1, french });
      });
      complete.push(...states.filter((state) => state.k === tokens.length));
    }
    if (!complete.length) return null;
    const french = complete[0].french;
    return {
      target: french.map((word) => word.token),
      alignment: french.map((word) => word.positions),
      categories: french.map((word) => word.category),
    };
  }

  // SentencePair.links: every (French position, English position) pair the alignment holds.
  function links(parsed) {
    return parsed.alignment.flatMap((positions, i) => positions.map((j) => [i, j]));
  }

  const api = { parse, links };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else global.attnbookToyGrammar = api;
})(typeof window !== "undefined" ? window : globalThis);
