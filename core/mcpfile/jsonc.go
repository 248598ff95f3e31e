package mcpfile

import "bytes"

// plain is data with what VS Code's JSON with comments adds to JSON blanked out: line
// comments, block comments and a comma before a closing } or ]. Each byte removed becomes a
// space (a block comment's line breaks stay), so an offset into the result is one into
// data. Strings are left alone; an unterminated block comment is left for the JSON decoder
// to refuse.
func plain(data []byte) []byte {
	out := bytes.Clone(data)
	inString, escaped := false, false
	comma := -1 // a comma outside strings with nothing but space and comments after it yet
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			j := bytes.Index(out[i+2:], []byte("*/"))
			if j < 0 {
				return out
			}
			end := i + 2 + j + 2
			for ; i < end; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			i--
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == ',':
			comma = i
		case c == '}' || c == ']':
			if comma >= 0 {
				out[comma] = ' '
			}
			comma = -1
		default:
			inString = c == '"'
			comma = -1
		}
	}
	return out
}

// lineCol is the 1-based line and column (in bytes) of offset in data.
func lineCol(data []byte, offset int) (line, col int) {
	offset = min(max(offset, 0), len(data))
	line = 1 + bytes.Count(data[:offset], []byte("\n"))
	return line, offset - bytes.LastIndexByte(data[:offset], '\n')
}
