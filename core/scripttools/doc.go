// Package scripttools finds the script tools of $CWX_HOME/tools/ and reads their frontmatter.
//
// A script tool is an executable regular file directly in the tools directory whose first lines
// are a frontmatter block of comments (README.md, “Script tools”):
//
//	#!/bin/sh
//	# ---
//	# name: word_count
//	# description: Count the words of the text on stdin's "text" field.
//	# input_schema: {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
//	# timeout: 10
//	# ---
//
// Comment lines start with `#` or `//`; the block opens and closes with `---` and must start
// within the first two lines (after an optional `#!` line). Keys: name and description
// (required), input_schema (one line of JSON, an object; default {"type": "object"}), timeout
// (whole seconds, 1–300, default 30) and approval, which is parsed only so that it can be
// reported as ignored: a script tool always needs approval. An unknown key, a duplicate key or
// a bad value makes that script a [Problem], never an error of the whole directory.
//
// [Discover] does not run anything. [Module] decides shadowing against the names the core
// gives it (its native tools, the desired plugins' tools) and the registry's reserved names,
// and writes the config of the builtin module `script-tools` (owner host:script-tools), which
// runs the scripts admitted.
package scripttools
