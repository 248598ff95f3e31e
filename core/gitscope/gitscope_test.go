package gitscope

import (
	"errors"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want Query
		bad  bool
	}{
		{"merge base", []string{"merge-base", "origin/main", "HEAD"}, Query{Kind: MergeBase, Base: "origin/main", Head: "HEAD"}, false},
		{"current ref", []string{"rev-parse", "--abbrev-ref", "HEAD"}, Query{Kind: CurrentRef}, false},
		{"log range", []string{"log", "--format=%H %s", "main..HEAD"}, Query{Kind: Commits, Base: "main", Head: "HEAD"}, false},
		{"log count", []string{"rev-list", "-n", "20", "main..feature/x"}, Query{Kind: Commits, Base: "main", Head: "feature/x", Max: 20}, false},
		{"log max-count", []string{"log", "--oneline", "--max-count=5", "v1.0..HEAD~2"}, Query{Kind: Commits, Base: "v1.0", Head: "HEAD~2", Max: 5}, false},
		{"diff three dots", []string{"diff", "--name-only", "main...HEAD"}, Query{Kind: ChangedFiles, Base: "main", Head: "HEAD"}, false},
		{"diff two revs", []string{"diff", "--name-status", "abc123", "HEAD"}, Query{Kind: ChangedFiles, Base: "abc123", Head: "HEAD"}, false},
		{"leading options", []string{"--no-optional-locks", "--no-pager", "merge-base", "main", "HEAD"}, Query{Kind: MergeBase, Base: "main", Head: "HEAD"}, false},
		{"empty", nil, Query{}, true},
		{"leading options only", []string{"--no-optional-locks"}, Query{}, true},
		{"leading config", []string{"-c", "core.pager=less", "merge-base", "main", "HEAD"}, Query{}, true},
		{"other command", []string{"push", "origin"}, Query{}, true},
		{"config", []string{"config", "core.hooksPath"}, Query{}, true},
		{"option as revision", []string{"merge-base", "--output=/tmp/x", "HEAD"}, Query{}, true},
		{"log option", []string{"log", "--exec=sh", "a..b"}, Query{}, true},
		{"log paging option", []string{"log", "-p", "a..b"}, Query{}, true},
		{"log no range", []string{"log", "main"}, Query{}, true},
		{"log three dots", []string{"log", "main...HEAD"}, Query{}, true},
		{"log two ranges", []string{"log", "a..b", "c..d"}, Query{}, true},
		{"log count too big", []string{"log", "-n", "100000", "a..b"}, Query{}, true},
		{"diff patch", []string{"diff", "main...HEAD"}, Query{}, true},
		{"diff with path", []string{"diff", "--name-only", "a", "b", "--", "x"}, Query{}, true},
		{"reflog revision", []string{"merge-base", "HEAD@{1}", "main"}, Query{}, true},
		{"space in revision", []string{"merge-base", "a b", "main"}, Query{}, true},
		{"rev-parse other", []string{"rev-parse", "--git-dir"}, Query{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := Parse(tc.args)
			if tc.bad {
				if !errors.Is(err, ErrRefused) {
					t.Fatalf("Parse(%q) = %+v, %v; want ErrRefused", tc.args, q, err)
				}
				return
			}
			if err != nil || q != tc.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", tc.args, q, err, tc.want)
			}
			if err := Check(q); err != nil {
				t.Fatalf("Check(%+v) = %v", q, err)
			}
		})
	}
}

func TestArgsAreFixed(t *testing.T) {
	for _, q := range []Query{{Kind: MergeBase, Base: "a", Head: "b"}, {Kind: Commits, Base: "a", Head: "b"}, {Kind: ChangedFiles, Base: "a", Head: "b"}, {Kind: CurrentRef}} {
		args, err := Args(q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(args[:len(safety)], safety) {
			t.Errorf("Args(%+v) does not start with the safety options: %q", q, args)
		}
		if !slices.Contains(args, "core.hooksPath=/dev/null") || !slices.Contains(args, "--no-pager") {
			t.Errorf("Args(%+v) = %q: hooks or pager not off", q, args)
		}
	}
	if got, _ := Args(Query{Kind: Commits, Base: "a", Head: "b"}); !slices.Contains(got, "--max-count=1000") {
		t.Errorf("a commit list without Max is not bounded: %q", got)
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, q := range []Query{{Kind: "push"}, {Kind: CurrentRef, Base: "x"}, {Kind: MergeBase, Base: "-x", Head: "y"}, {Kind: ChangedFiles, Base: "a", Head: "b", Max: 3}, {Kind: Commits, Base: "a", Head: "b", Max: -1}} {
		if args, err := Args(q); !errors.Is(err, ErrRefused) {
			t.Errorf("Args(%+v) = %q, %v; want ErrRefused", q, args, err)
		}
	}
}

// FuzzParse: whatever Parse admits passes Check, and no revision it admits can be read by
// git as an option.
func FuzzParse(f *testing.F) {
	f.Add("merge-base\x00main\x00HEAD")
	f.Add("log\x00-n\x003\x00a..b")
	f.Add("diff\x00--name-only\x00a...b")
	f.Add("rev-parse\x00--abbrev-ref\x00HEAD")
	f.Fuzz(func(t *testing.T, s string) {
		args := splitNUL(s)
		q, err := Parse(args)
		if err != nil {
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("Parse(%q): %v is not ErrRefused", args, err)
			}
			return
		}
		if err := Check(q); err != nil {
			t.Fatalf("Parse(%q) = %+v, which Check refuses: %v", args, q, err)
		}
		for _, r := range []string{q.Base, q.Head} {
			if r != "" && r[0] == '-' {
				t.Fatalf("Parse(%q) admitted the option-like revision %q", args, r)
			}
		}
	})
}

func splitNUL(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
