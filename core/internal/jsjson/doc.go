// Package jsjson re-encodes a JSON text the way ECMAScript's
// JSON.stringify(JSON.parse(text)) does, which is the form Claude Code hands its hooks and
// the value a JavaScript tool acts on (ARCHITECTURE.md, “Pre-execute hooks”).
//
// [Reencode] decodes every escape and writes the value back as JSON.stringify would:
//
//   - no whitespace; strings escape only `"`, `\`, the controls below U+0020 (\b \f \n \r
//     \t by name, the others as \u00xx) and lone surrogates (\udxxx); every other
//     character, U+2028, U+2029 and U+007F included, is written as it is (UTF-8);
//   - numbers are the double JSON.parse reads, formatted as Number.prototype.toString
//     (-0 is 0, 1e21 stays 1e+21, a number beyond the double range is Infinity, which
//     JSON.stringify writes as null);
//   - object members keep the order they were parsed in, except that array-index names
//     ("0" to "4294967294" in canonical form) come first in ascending numeric order, as
//     ordinary objects list their keys; a repeated name keeps its first position and its
//     last value (JSON.parse's CreateDataProperty).
//
// Bytes that are not UTF-8 are read as U+FFFD, as a UTF-8 decoder does before JSON.parse
// sees the text. Text that is not one JSON value, or nests deeper than [MaxDepth], is
// refused with [ErrNotJSON]. The golden corpus in testdata/corpus.json is checked against a
// real Node.
package jsjson
