package gitscope

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds of one query.
const (
	MaxOutput  = 256 << 10 // bytes of output kept; more is cut and says so
	Deadline   = 10 * time.Second
	MaxCommits = 1000 // the most commits a commit list may name
	maxRev     = 255
	maxArgs    = 8
)

// Kind is what a query asks.
type Kind string

// The kinds.
const (
	MergeBase    Kind = "merge-base"    // git merge-base <base> <head>
	Commits      Kind = "commits"       // git log --format=%H%x09%s <base>..<head>
	ChangedFiles Kind = "changed-files" // git diff --name-status <base>...<head>
	CurrentRef   Kind = "current-ref"   // git rev-parse --abbrev-ref HEAD
)

// Query is one admitted metadata query.
type Query struct {
	Kind Kind   `json:"kind"`
	Base string `json:"base,omitempty"`
	Head string `json:"head,omitempty"`
	// Max bounds a commit list (1..MaxCommits); 0 means MaxCommits.
	Max int `json:"max,omitempty"`
}

// Leading are the global options Parse accepts before the subcommand: each is one that
// Args sets itself.
var Leading = []string{"--no-optional-locks", "--no-pager"}

// ErrRefused is the error of every argument list Parse does not admit.
var ErrRefused = errors.New("not a bounded git metadata query")

// Parse admits the argument list of `git <args>` when it is one of the metadata queries a
// review scope needs, in the forms review plugins write them:
//
//	merge-base <base> <head>
//	rev-parse --abbrev-ref HEAD
//	log|rev-list [--format=<f>|--oneline|--pretty=<f>] [-n <n>|--max-count=<n>] <base>..<head>
//	diff --name-only|--name-status <base>...<head>|<base> <head>
//
// Leading `--no-optional-locks` and `--no-pager`, which review plugins put before every
// query and which Args passes anyway, are accepted and dropped ([Leading]). Anything else is
// ErrRefused, saying what was not admitted.
func Parse(args []string) (Query, error) {
	if len(args) > maxArgs+len(Leading) {
		return Query{}, fmt.Errorf("%w: %d arguments", ErrRefused, len(args))
	}
	for len(args) > 0 && slices.Contains(Leading, args[0]) {
		args = args[1:]
	}
	if len(args) == 0 || len(args) > maxArgs {
		return Query{}, fmt.Errorf("%w: %d arguments", ErrRefused, len(args))
	}
	switch args[0] {
	case "merge-base":
		if len(args) != 3 {
			return Query{}, fmt.Errorf("%w: merge-base takes two revisions", ErrRefused)
		}
		return revs(Query{Kind: MergeBase, Base: args[1], Head: args[2]})
	case "rev-parse":
		if len(args) == 3 && args[1] == "--abbrev-ref" && args[2] == "HEAD" {
			return Query{Kind: CurrentRef}, nil
		}
		return Query{}, fmt.Errorf("%w: only `rev-parse --abbrev-ref HEAD` is admitted", ErrRefused)
	case "log", "rev-list":
		return parseLog(args[1:])
	case "diff":
		return parseDiff(args[1:])
	}
	return Query{}, fmt.Errorf("%w: `git %s`", ErrRefused, cutArg(args[0]))
}

func parseLog(args []string) (Query, error) {
	q := Query{Kind: Commits}
	var rng []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--oneline" || strings.HasPrefix(a, "--format=") || strings.HasPrefix(a, "--pretty="):
			// the format is the core's own; the plugin's is accepted and not used
		case a == "-n" && i+1 < len(args):
			i++
			n, err := count(args[i])
			if err != nil {
				return Query{}, err
			}
			q.Max = n
		case strings.HasPrefix(a, "--max-count="):
			n, err := count(strings.TrimPrefix(a, "--max-count="))
			if err != nil {
				return Query{}, err
			}
			q.Max = n
		case strings.HasPrefix(a, "-"):
			return Query{}, fmt.Errorf("%w: option %s of git log", ErrRefused, cutArg(a))
		default:
			rng = append(rng, a)
		}
	}
	if len(rng) != 1 {
		return Query{}, fmt.Errorf("%w: git log takes one range <base>..<head>", ErrRefused)
	}
	base, head, ok := strings.Cut(rng[0], "..")
	if !ok || strings.HasPrefix(head, ".") {
		return Query{}, fmt.Errorf("%w: git log takes one range <base>..<head>", ErrRefused)
	}
	q.Base, q.Head = base, head
	return revs(q)
}

func parseDiff(args []string) (Query, error) {
	if len(args) < 2 || (args[0] != "--name-only" && args[0] != "--name-status") {
		return Query{}, fmt.Errorf("%w: git diff needs --name-only or --name-status", ErrRefused)
	}
	q := Query{Kind: ChangedFiles}
	switch rest := args[1:]; len(rest) {
	case 1:
		base, head, ok := strings.Cut(rest[0], "...")
		if !ok {
			return Query{}, fmt.Errorf("%w: git diff takes <base>...<head> or two revisions", ErrRefused)
		}
		q.Base, q.Head = base, head
	case 2:
		q.Base, q.Head = rest[0], rest[1]
	default:
		return Query{}, fmt.Errorf("%w: git diff takes <base>...<head> or two revisions", ErrRefused)
	}
	return revs(q)
}

func count(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxCommits {
		return 0, fmt.Errorf("%w: a commit count must be 1..%d", ErrRefused, MaxCommits)
	}
	return n, nil
}

// revs checks q's revisions.
func revs(q Query) (Query, error) {
	for _, r := range []string{q.Base, q.Head} {
		if err := CheckRev(r); err != nil {
			return Query{}, err
		}
	}
	return q, nil
}

// CheckRev admits a plain revision: a ref name, a hash, HEAD, optionally with ~n or ^n
// suffixes. It refuses an empty one, a leading '-' (an option), "..", "@{" and every
// character outside [A-Za-z0-9/._~^-].
func CheckRev(r string) error {
	switch {
	case r == "":
		return fmt.Errorf("%w: an empty revision", ErrRefused)
	case len(r) > maxRev:
		return fmt.Errorf("%w: a revision of %d bytes", ErrRefused, len(r))
	case r[0] == '-':
		return fmt.Errorf("%w: revision %s starts with '-'", ErrRefused, cutArg(r))
	case strings.Contains(r, ".."), strings.HasSuffix(r, "."), strings.HasSuffix(r, "/"), strings.Contains(r, "//"):
		return fmt.Errorf("%w: revision %s is not a plain ref name", ErrRefused, cutArg(r))
	}
	for _, c := range []byte(r) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._~^-", c) >= 0
		if !ok {
			return fmt.Errorf("%w: revision %s has the character %q", ErrRefused, cutArg(r), c)
		}
	}
	return nil
}

// Check reports whether q is a query Parse could have made.
func Check(q Query) error {
	switch q.Kind {
	case CurrentRef:
		if q.Base != "" || q.Head != "" || q.Max != 0 {
			return fmt.Errorf("%w: current-ref takes no revisions", ErrRefused)
		}
		return nil
	case MergeBase, Commits, ChangedFiles:
	default:
		return fmt.Errorf("%w: kind %s", ErrRefused, cutArg(string(q.Kind)))
	}
	if q.Max < 0 || q.Max > MaxCommits || (q.Max != 0 && q.Kind != Commits) {
		return fmt.Errorf("%w: max %d", ErrRefused, q.Max)
	}
	_, err := revs(q)
	return err
}

// safety are the options before every query: no hooks, no pager, no optional locks, no
// lazy fetch, no replacement objects, no external diff or textconv driver.
var safety = []string{
	"-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat", "-c", "core.fsmonitor=false",
	"-c", "diff.external=", "-c", "log.showSignature=false",
	"--no-pager", "--no-optional-locks", "--no-replace-objects", "--literal-pathspecs",
}

// Env is the environment a query runs with, on top of a minimal one: no prompt, no lazy
// fetch of promised objects, no system or global configuration.
var Env = []string{"GIT_TERMINAL_PROMPT=0", "GIT_NO_LAZY_FETCH=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_PAGER=cat", "PAGER=cat"}

// Args is the argument list, after `git`, that runs q; a q that Check refuses is an error.
func Args(q Query) ([]string, error) {
	if err := Check(q); err != nil {
		return nil, err
	}
	return args(q), nil
}

func args(q Query) []string {
	out := append([]string(nil), safety...)
	switch q.Kind {
	case MergeBase:
		return append(out, "merge-base", q.Base, q.Head)
	case Commits:
		n := q.Max
		if n == 0 {
			n = MaxCommits
		}
		return append(out, "log", "--no-ext-diff", "--no-textconv", "--format=%H%x09%s", "--max-count="+strconv.Itoa(n), q.Base+".."+q.Head, "--")
	case ChangedFiles:
		return append(out, "diff", "--no-ext-diff", "--no-textconv", "--name-status", q.Base+"..."+q.Head, "--")
	}
	return append(out, "rev-parse", "--abbrev-ref", "HEAD")
}

// cutArg quotes s for an error, cut to 64 bytes.
func cutArg(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return strconv.Quote(s)
}
