// Package skills discovers and audits the skills under the roots an agent names: each skill
// is a folder `<root>/<name>/` holding a `SKILL.md` whose front matter gives its `name` and
// `description` (core/services doc.go, “Agent services”). The core reads them, never the plugin:
// a plugin's `skills` service lists what Discover admitted.
//
// Discover audits every candidate and keeps the reason of each it refuses: a SKILL.md that
// is a symbolic link or not a regular file, larger than MaxFile, without front matter, with
// a name that is not lower-case letters, digits and '-' or that differs from its folder's, a
// description that is empty, longer than MaxDescription or holds a character package inert
// refuses. A root that is missing is skipped; one that is not a folder is a problem. At most
// MaxSkills are listed; the rest are problems.
package skills
