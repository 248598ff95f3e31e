package ccplugin

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cwx-dev/cwx/core/inert"
	"github.com/cwx-dev/cwx/core/internal/lazyre"
)

// Command is one commands/*.md file: a slash command whose result is a prompt.
type Command struct {
	Name         string `json:"name"` // the file's name without .md
	File         string `json:"file"` // relative to the plugin folder
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	// Body is the prompt, before Expand.
	Body string `json:"-"`
	// Notes say what of the file cwx does not use (a frontmatter key, shell lines).
	Notes []string `json:"notes,omitempty"`
}

var commandNameRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// usedKeys are the frontmatter keys cwx reads.
var usedKeys = map[string]bool{"description": true, "argument-hint": true}

// ParseCommand reads the command file rel (commands/<name>.md) of data: optional
// frontmatter, then the prompt.
func ParseCommand(rel string, data []byte) (Command, error) {
	name := strings.TrimSuffix(rel[strings.LastIndexByte(rel, '/')+1:], ".md")
	if !commandNameRE().MatchString(name) {
		return Command{}, &Error{File: rel, Reason: "the command's name (the file's, without .md) must be letters, digits, '-' and '_' (at most 64); rename the file"}
	}
	text := string(data)
	if err := inert.Check(strings.NewReplacer("\n", "", "\r", "", "\t", "").Replace(text)); err != nil {
		return Command{}, &Error{File: rel, Reason: fmt.Sprintf("%v; remove the control characters", err)}
	}
	c := Command{Name: name, File: rel}
	body, fm, err := splitFrontmatter(text)
	if err != nil {
		return Command{}, &Error{File: rel, Reason: err.Error()}
	}
	for _, kv := range fm {
		switch kv.key {
		case "description":
			c.Description = kv.value
		case "argument-hint":
			c.ArgumentHint = kv.value
		default:
			c.Notes = append(c.Notes, fmt.Sprintf("frontmatter %s: not used by cwx", kv.key))
		}
	}
	c.Body = strings.TrimSpace(body)
	if c.Body == "" {
		return Command{}, &Error{File: rel, Reason: "the prompt (the text after the frontmatter) is empty; write what the command asks"}
	}
	if strings.Contains(c.Body, "!`") {
		c.Notes = append(c.Notes, "its !`…` shell lines are not run by cwx: they stay in the prompt as written")
	}
	return c, nil
}

type keyValue struct{ key, value string }

// splitFrontmatter splits text into the body and the `key: value` lines of a leading
// frontmatter block ("---" lines around it); a text that does not start with "---" has none.
func splitFrontmatter(text string) (string, []keyValue, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		return text, nil, nil
	}
	var kvs []keyValue
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimRight(l, " \t") == "---" {
			return strings.Join(lines[i+1:], "\n"), kvs, nil
		}
		trimmed := strings.TrimSpace(l)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			continue
		case l[0] == ' ' || l[0] == '\t' || strings.HasPrefix(trimmed, "- "):
			// a YAML list or a folded value, of the key before
			if len(kvs) == 0 || usedKeys[kvs[len(kvs)-1].key] {
				return "", nil, fmt.Errorf("frontmatter line %d: %q continues no key cwx can read; write `description: …` and `argument-hint: …` each on one line", i+1, trimmed)
			}
			continue
		}
		key, value, ok := strings.Cut(l, ":")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t\"'") {
			return "", nil, fmt.Errorf("frontmatter line %d: %q is not `key: value`; fix the line, or end the frontmatter with a line of ---", i+1, trimmed)
		}
		value = unquote(strings.TrimSpace(value))
		kvs = append(kvs, keyValue{key, value})
	}
	return "", nil, fmt.Errorf("the frontmatter that starts on line 1 never ends; add a line of --- after its last `key: value` line")
}

// unquote strips one pair of matching quotes.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		if s[0] == '"' {
			if u, err := strconv.Unquote(s); err == nil {
				return u
			}
		}
		return s[1 : len(s)-1]
	}
	return s
}

var positionalRE = lazyre.New(`\$([1-9])`)

// Expand is the command's prompt for the text after its name: `$ARGUMENTS` becomes args
// (trimmed), `$1` … `$9` its whitespace-separated words (a missing one is empty).
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := strings.Fields(args)
	out := strings.ReplaceAll(c.Body, "$ARGUMENTS", args)
	return positionalRE().ReplaceAllStringFunc(out, func(m string) string {
		n := int(m[1] - '0')
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
}
