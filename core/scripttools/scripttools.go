package scripttools

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
	"github.com/cwx-dev/cwx/core/registry"
)

// Bounds of one script and of the directory.
const (
	MaxScriptBytes  = 1 << 20 // a larger file is not read (a Problem)
	MaxFrontmatter  = 16 << 10
	MaxScripts      = 256 // files beyond this many, in name order, are Problems
	DefaultTimeout  = 30 * time.Second
	MaxTimeout      = 300 * time.Second
	MaxOutputBytes  = 64 << 10 // stdout kept as the result; past it the process group is killed
	MaxStderrBytes  = 16 << 10 // stderr kept for the error text
	maxSchemaBytes  = 8 << 10
	maxDescBytes    = 1024
	defaultSchema   = `{"type":"object"}`
	frontmatterMark = "---"
)

var nameRE = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// Script is one script tool as its frontmatter describes it.
type Script struct {
	Path        string          // absolute path of the file
	File        string          // its name in the directory
	SHA256      string          // hex digest of the bytes read; the module refuses to run other bytes
	Name        string          // the tool's name
	Description string          // its description
	InputSchema json.RawMessage // a JSON object
	Timeout     time.Duration
	// AskedAuto is set when the frontmatter says `approval: auto`, which is ignored.
	AskedAuto bool
}

// Problem is a file of the directory that is not a script tool, and why.
type Problem struct {
	File   string
	Reason string
}

func (p Problem) String() string { return p.File + ": " + p.Reason }

// Discover reads dir (not recursively). A missing directory has no scripts and no problems.
// Hidden files and files that are not executable by their owner are skipped silently (a
// README beside the scripts is fine); every other file that is not a valid script tool is a
// Problem. Two scripts with the same folded name (lower-cased, `-` read as `_`) are both kept
// out as Problems. Scripts come back sorted by file name.
func Discover(dir string) ([]Script, []Problem, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the script tools directory: %w", err)
	}
	var scripts []Script
	var problems []Problem
	n := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			problems = append(problems, Problem{name, err.Error()})
			continue
		}
		if !fi.Mode().IsRegular() {
			if fi.Mode()&os.ModeSymlink != 0 {
				problems = append(problems, Problem{name, "is a symbolic link; put the script itself in the directory"})
			}
			continue
		}
		if fi.Mode().Perm()&0o100 == 0 {
			continue
		}
		if n++; n > MaxScripts {
			problems = append(problems, Problem{name, fmt.Sprintf("more than %d scripts; this one is not loaded", MaxScripts)})
			continue
		}
		s, err := Load(filepath.Join(dir, name))
		if err != nil {
			problems = append(problems, Problem{name, err.Error()})
			continue
		}
		scripts = append(scripts, s)
	}
	// one folded name, one script
	byName := map[string][]int{}
	for i, s := range scripts {
		byName[registry.Fold(s.Name)] = append(byName[registry.Fold(s.Name)], i)
	}
	var kept []Script
	for i, s := range scripts {
		if same := byName[registry.Fold(s.Name)]; len(same) > 1 {
			var files []string
			for _, j := range same {
				files = append(files, scripts[j].File)
			}
			problems = append(problems, Problem{s.File, fmt.Sprintf("tool name `%s` is used by %d scripts (%s); rename all but one", s.Name, len(same), strings.Join(files, ", "))})
			continue
		}
		kept = append(kept, scripts[i])
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].File < problems[j].File })
	return kept, problems, nil
}

// Load reads one script file and its frontmatter.
func Load(path string) (Script, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return Script{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxScriptBytes+1))
	if err != nil {
		return Script{}, err
	}
	if len(b) > MaxScriptBytes {
		return Script{}, fmt.Errorf("is larger than %d bytes", MaxScriptBytes)
	}
	s, err := Parse(b)
	if err != nil {
		return Script{}, err
	}
	sum := sha256.Sum256(b)
	s.Path, s.File, s.SHA256 = path, filepath.Base(path), hex.EncodeToString(sum[:])
	return s, nil
}

// Parse reads the frontmatter at the top of a script's bytes.
func Parse(b []byte) (Script, error) {
	head := b
	if len(head) > MaxFrontmatter {
		head = head[:MaxFrontmatter]
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(make([]byte, 0, 4096), MaxFrontmatter)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	i := 0
	if i < len(lines) && strings.HasPrefix(lines[i], "#!") {
		i++
	}
	if i >= len(lines) || comment(lines[i]) != frontmatterMark {
		return Script{}, errors.New("has no frontmatter: its first comment line (after #!) must be `# ---`")
	}
	i++
	fields := map[string]string{}
	var keys []string // in file order, so the first bad field is the one reported
	closed := false
	for ; i < len(lines); i++ {
		line := lines[i]
		if !isComment(line) {
			break
		}
		c := comment(line)
		if c == frontmatterMark {
			closed = true
			break
		}
		if c == "" {
			continue
		}
		key, value, ok := strings.Cut(c, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || key == "" {
			return Script{}, fmt.Errorf("frontmatter line %q is not `key: value`", c)
		}
		if _, dup := fields[key]; dup {
			return Script{}, fmt.Errorf("frontmatter key %q given twice", key)
		}
		fields[key] = value
		keys = append(keys, key)
	}
	if !closed {
		return Script{}, fmt.Errorf("frontmatter is not closed with `# ---` within its first %d bytes", MaxFrontmatter)
	}
	s := Script{Timeout: DefaultTimeout, InputSchema: json.RawMessage(defaultSchema)}
	for _, key := range keys {
		value := fields[key]
		switch key {
		case "name":
			if !nameRE().MatchString(value) {
				return Script{}, fmt.Errorf("name %q must match %s", value, nameRE())
			}
			s.Name = value
		case "description":
			if value == "" || len(value) > maxDescBytes {
				return Script{}, fmt.Errorf("description must be 1 to %d bytes", maxDescBytes)
			}
			s.Description = value
		case "input_schema":
			if len(value) > maxSchemaBytes {
				return Script{}, fmt.Errorf("input_schema is longer than %d bytes", maxSchemaBytes)
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(value), &obj); err != nil {
				return Script{}, fmt.Errorf("input_schema is not one line of JSON holding an object: %w", err)
			}
			if obj == nil {
				return Script{}, errors.New("input_schema is not one line of JSON holding an object: it is null")
			}
			compact := new(bytes.Buffer)
			if err := json.Compact(compact, []byte(value)); err != nil {
				return Script{}, fmt.Errorf("input_schema: %w", err)
			}
			s.InputSchema = compact.Bytes()
		case "timeout":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || time.Duration(n)*time.Second > MaxTimeout {
				return Script{}, fmt.Errorf("timeout %q must be whole seconds from 1 to %d", value, int(MaxTimeout/time.Second))
			}
			s.Timeout = time.Duration(n) * time.Second
		case "approval":
			switch value {
			case "auto":
				s.AskedAuto = true
			case "required", "ask":
			default:
				return Script{}, fmt.Errorf("approval %q is not auto or required (and a script tool always needs approval)", value)
			}
		default:
			return Script{}, fmt.Errorf("unknown frontmatter key %q (keys: name, description, input_schema, timeout, approval)", key)
		}
	}
	if s.Name == "" || s.Description == "" {
		return Script{}, errors.New("frontmatter needs both `name` and `description`")
	}
	return s, nil
}

func isComment(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//")
}

// comment is the text of a comment line without its marker, trimmed; "" for other lines.
func comment(line string) string {
	t := strings.TrimLeft(line, " \t")
	switch {
	case strings.HasPrefix(t, "//"):
		return strings.TrimSpace(t[2:])
	case strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#!"):
		return strings.TrimSpace(t[1:])
	}
	return ""
}
