// Package inert keeps plugin text from acting on the person who reads it. Plugin text (a
// manifest's name and description, a tool's or command's description, a result, a log
// line, a diagnostic) must read as what it is: it may not drive the terminal, reorder
// itself on screen or hide a line break (ARCHITECTURE.md, “Plugins and trust”).
//
// One set of characters is refused ([Refused]): the C0 controls except tab and newline,
// DEL, the C1 controls (U+0080–U+009F), the bidi embeddings, overrides and isolates
// (U+202A–U+202E, U+2066–U+2069), the marks U+200E, U+200F and U+061C, the separators
// U+2028 and U+2029, and U+FEFF. Joiners such as U+200D (which emoji sequences need) are
// not in it.
//
// The set is applied three ways:
//
//   - at admission, [Check] names the first refused character of a field, and the manifest
//     reader and the registry refuse the field with it;
//   - on every terminal path, [Strip] removes the set and whole terminal escape sequences
//     (every printer of the CLI calls it; so does the Manager for command text);
//   - in JSON output, [EscapeJSON] rewrites each character of the set as a \u escape, so
//     the data is kept but a terminal showing the JSON is not driven by it.
//
// [CheckText] is Check for a bounded field whose refusal is told to the plugin in words
// (a question to the person, a child agent's prompt), and [Cut] cuts text on a UTF-8
// boundary (a command's answer, a child's result).
package inert
