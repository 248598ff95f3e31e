package plugins

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Pending is an update staged by [Store.StageUpdate] and not yet trusted. The record's own
// version, closure and receipt stay what they were, so the old version keeps running; a
// trust with the pending review's token promotes it.
type Pending struct {
	Version     string    `json:"version"`
	Description string    `json:"description,omitempty"`
	Kind        string    `json:"kind"`
	Closure     string    `json:"closure_sha256"`
	Files       int       `json:"files"`
	Bytes       int64     `json:"bytes"`
	Entries     []Entry   `json:"entries"`
	Origin      *Origin   `json:"origin"`
	StagedAt    time.Time `json:"staged_at"`
}

// UpdateReview is what changes between the installed version and a staged one.
type UpdateReview struct {
	ID          string `json:"id"`
	From        string `json:"from_version"`
	To          string `json:"to_version"`
	FromClosure string `json:"from_closure_sha256"`
	ToClosure   string `json:"to_closure_sha256"`
	ToSource    string `json:"to_source"`
	Integrity   string `json:"integrity,omitempty"`
	Deprecated  string `json:"deprecated,omitempty"`
	// Files added, removed and changed, slash-separated paths.
	Added   []string `json:"files_added"`
	Removed []string `json:"files_removed"`
	Changed []string `json:"files_changed"`
	// Entries of the host before and after; an entry of both whose bytes changed is in
	// EntriesChanged.
	EntriesBefore  []string `json:"entries_before"`
	EntriesAfter   []string `json:"entries_after"`
	EntriesChanged []string `json:"entries_changed"`
	// Injects before and after: the services the entries inject, as far as visible
	// statically (an entry whose list is not visible adds "?").
	InjectsBefore []string `json:"injects_before"`
	InjectsAfter  []string `json:"injects_after"`
	// Dependencies added, removed or changed (name → "old → new").
	Dependencies map[string]string `json:"dependencies_changed"`
	// Grants: cwx plugins declare none in their manifests (what a plugin may reach is set
	// in config.toml), so an update cannot ask for more; said here so the review covers it.
	Grants string `json:"grants"`
	// InstallScripts is always false: a version that declares them is refused at staging.
	InstallScripts bool   `json:"install_scripts"`
	Unchanged      bool   `json:"unchanged"`
	Token          string `json:"token,omitempty"`
	DryRun         bool   `json:"dry_run"`
}

// ErrNoPending is a trust or review of an update when none is staged.
var ErrNoPending = errors.New("no update is staged")

// StageUpdate stages the package at src as id's next version and compares it with the
// installed one. With dryRun it only reviews: the staged copy is dropped and nothing is
// recorded. Otherwise the record gains a Pending update and keeps running its current
// version until Trust is given the pending review's token.
func (s *Store) StageUpdate(id, src string, opt InstallOptions, dryRun bool) (*UpdateReview, error) {
	cur, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	opt.StageOnly = true
	res, err := s.InstallWith(src, opt)
	if err != nil {
		return nil, err
	}
	if res.ID != id {
		if res.Closure != cur.Closure {
			_ = removeTree(res.StageDir)
		}
		return nil, &RefusalError{Source: opt.Label, Reason: fmt.Sprintf("is the package %s, not %s", res.ID, id)}
	}
	rv, err := s.compareStages(cur, res, opt.Origin)
	if err != nil {
		return nil, err
	}
	rv.DryRun = dryRun
	if rv.Unchanged {
		return rv, nil
	}
	if dryRun {
		if p := cur.Pending; p == nil || p.Closure != res.Closure {
			_ = removeTree(res.StageDir)
		}
		return rv, nil
	}
	newDir := res.StageDir
	m, err := ReadManifest(newDir)
	if err != nil {
		return nil, err
	}
	entries, err := hashEntries(newDir, m.Entries)
	if err != nil {
		return nil, err
	}
	p := &Pending{Version: res.Version, Description: m.Description, Kind: m.Kind, Closure: res.Closure,
		Files: res.Files, Bytes: res.Bytes, Entries: entries, Origin: opt.Origin, StagedAt: s.now().UTC()}
	err = s.withRecord(id, func(r *Record) (bool, error) {
		if r.Closure != cur.Closure {
			return false, fmt.Errorf("%w: %s was reinstalled while its update was staged; run the update again", ErrContentChanged, id)
		}
		r.Pending = p
		return false, nil // what runs has not changed
	})
	if err != nil {
		return nil, err
	}
	rv.Token = ReviewToken(id, res.Closure, s.tokenPolicy())
	return rv, nil
}

// compareStages lists what differs between cur's staged copy and the new one.
func (s *Store) compareStages(cur *Record, res *InstallResult, o *Origin) (*UpdateReview, error) {
	oldDir := s.layout.StageDir(cur.ID, cur.Closure)
	rv := &UpdateReview{ID: cur.ID, From: cur.Version, To: res.Version, FromClosure: cur.Closure, ToClosure: res.Closure,
		Added: []string{}, Removed: []string{}, Changed: []string{}, EntriesChanged: []string{}, Dependencies: map[string]string{},
		Grants:    "none requested: cwx plugins declare no grants; config.toml sets what each may reach",
		Unchanged: cur.Closure == res.Closure}
	if o != nil {
		rv.ToSource, rv.Integrity, rv.Deprecated = o.String(), o.Integrity, o.Deprecated
	}
	before, err := fileHashes(oldDir)
	if err != nil {
		return nil, fmt.Errorf("%w; reinstall %s, then update it", err, cur.ID)
	}
	after, err := fileHashes(res.StageDir)
	if err != nil {
		return nil, err
	}
	for p, h := range after {
		switch old, ok := before[p]; {
		case !ok:
			rv.Added = append(rv.Added, p)
		case old != h:
			rv.Changed = append(rv.Changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			rv.Removed = append(rv.Removed, p)
		}
	}
	slices.Sort(rv.Added)
	slices.Sort(rv.Removed)
	slices.Sort(rv.Changed)
	mOld, err := ReadManifest(oldDir)
	if err != nil {
		return nil, err
	}
	mNew, err := ReadManifest(res.StageDir)
	if err != nil {
		return nil, err
	}
	rv.EntriesBefore, rv.EntriesAfter = slices.Clone(mOld.Entries), slices.Clone(mNew.Entries)
	for _, e := range mNew.Entries {
		if slices.Contains(mOld.Entries, e) && slices.Contains(rv.Changed, e) {
			rv.EntriesChanged = append(rv.EntriesChanged, e)
		}
	}
	rv.InjectsBefore, rv.InjectsAfter = injectsOf(oldDir, mOld.Entries), injectsOf(res.StageDir, mNew.Entries)
	for name, r := range mNew.Dependencies {
		if old, ok := mOld.Dependencies[name]; !ok {
			rv.Dependencies[name] = "added " + r
		} else if old != r {
			rv.Dependencies[name] = old + " → " + r
		}
	}
	for name, r := range mOld.Dependencies {
		if _, ok := mNew.Dependencies[name]; !ok {
			rv.Dependencies[name] = "removed " + r
		}
	}
	return rv, nil
}

func injectsOf(dir string, entries []string) []string {
	seen := map[string]bool{}
	for _, e := range entries {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e)))
		inj := StaticInjects(src)
		if err != nil || inj == nil {
			seen["?"] = true
			continue
		}
		for _, n := range inj {
			seen[n] = true
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// fileHashes maps each file of a staged copy to its sha256 (a symlink to "->" + target).
func fileHashes(root string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "->" + t
		case d.Type().IsRegular():
			h, err := FileSHA256(p)
			if err != nil {
				return err
			}
			out[rel] = h
		}
		return nil
	})
	return out, err
}

// trustPending promotes r's pending update when token is its review's token. It reports
// whether the token was the pending one.
func (s *Store) trustPending(r *Record, token string) (bool, error) {
	p := r.Pending
	if p == nil {
		return false, nil
	}
	want := ReviewToken(r.ID, p.Closure, s.tokenPolicy())
	if subtle.ConstantTimeCompare([]byte(want), []byte(token)) != 1 {
		return false, nil
	}
	if err := s.VerifyClosure(&Record{ID: r.ID, Closure: p.Closure}); err != nil {
		return true, fmt.Errorf("%w; run the update again", err)
	}
	return true, s.withRecord(r.ID, func(cur *Record) (bool, error) {
		if cur.Pending == nil || cur.Pending.Closure != p.Closure {
			return false, fmt.Errorf("%w: the update of %s changed during trust; review it again", ErrContentChanged, r.ID)
		}
		now := s.now().UTC()
		cur.Version, cur.Description, cur.Kind = p.Version, p.Description, p.Kind
		cur.Closure, cur.Files, cur.Bytes, cur.Entries = p.Closure, p.Files, p.Bytes, p.Entries
		cur.Origin, cur.Source, cur.InstalledAt = p.Origin, sourceOf(p.Origin), p.StagedAt
		if cur.FirstTrustedAt.IsZero() {
			cur.FirstTrustedAt = now
		}
		cur.Trust = s.receiptFor(cur, p.Closure, p.Entries)
		cur.Trust.TrustedAt = now
		cur.Pending = nil
		return true, nil
	})
}
