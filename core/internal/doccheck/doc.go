// Package doccheck holds the repository's checks of its own documents. It has no code of
// its own: its tests read the tracked files from the module root.
//
// # Citations
//
// Code and documents point a reader at a section in one of two forms, a document's heading
// or a package's doc.go:
//
//	(ARCHITECTURE.md, “Sandbox”)          a heading of a Markdown file at the module root
//	(core/natives doc.go, “Native tools”) a heading (a "# " line) of that package's doc.go
//	(core/natives doc.go)                 the doc.go itself
//
// Straight quotes count as well as curly ones, and a citation may wrap across comment lines.
// TestCitationsNameHeadings fails on every citation whose document, doc.go or heading does
// not exist, so a section that is renamed or moves takes its citations with it. Inside
// ARCHITECTURE.md a bare parenthesised (“Heading”) is a reference to one of its own
// headings and is checked the same way. CHANGELOG.md is history and is not checked: it may
// name a heading as it was then.
//
// # Issue numbers
//
// A reader of the repository cannot open the project's issue tracker, so no document but
// CHANGELOG.md names an issue: TestNoIssueNumbersInDocuments reads every tracked Markdown
// file and every doc.go for the word issue (or issues) followed by a number, and for a
// number written after a hash sign.
package doccheck
