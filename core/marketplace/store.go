package marketplace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cwx-dev/cwx/core/egress"
	"github.com/cwx-dev/cwx/core/internal/boundedfile"
)

// Known is one added marketplace, as $CWX_HOME/marketplaces.json keeps it.
type Known struct {
	Name   string    `json:"name"`
	Source string    `json:"source"` // the path or https URL it was added from
	Repo   string    `json:"repo"`   // the repository read: the path itself, or a bare clone under $CWX_HOME
	Commit string    `json:"commit"` // the commit read when it was added
	Added  time.Time `json:"added_at"`
}

type file struct {
	Version      int              `json:"version"`
	Marketplaces map[string]Known `json:"marketplaces"`
}

// Path is $CWX_HOME/marketplaces.json.
func Path(home string) string { return filepath.Join(home, "marketplaces.json") }

// List reads the added marketplaces, sorted by name.
func List(home string) ([]Known, error) {
	f, err := load(home)
	if err != nil {
		return nil, err
	}
	out := make([]Known, 0, len(f.Marketplaces))
	for _, k := range f.Marketplaces {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Get returns the marketplace named name.
func Get(home, name string) (Known, bool, error) {
	f, err := load(home)
	if err != nil {
		return Known{}, false, err
	}
	k, ok := f.Marketplaces[name]
	return k, ok, nil
}

func load(home string) (*file, error) {
	data, err := boundedfile.Read(Path(home), MaxManifestBytes, false)
	if errors.Is(err, os.ErrNotExist) {
		return &file{Version: 1, Marketplaces: map[string]Known{}}, nil
	}
	if err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil || f.Version != 1 {
		return nil, fmt.Errorf("%w: %s does not parse (%v)", ErrMarketplace, Path(home), err)
	}
	if f.Marketplaces == nil {
		f.Marketplaces = map[string]Known{}
	}
	return &f, nil
}

// Add reads the marketplace at src (a repository path, or an https URL cloned bare under
// $CWX_HOME/marketplaces/) at its HEAD commit and records it under its manifest's name.
func Add(ctx context.Context, home, src string, now time.Time) (Known, *Snapshot, error) {
	repo, err := Fetch(ctx, home, src)
	if err != nil {
		return Known{}, nil, err
	}
	snap, err := Open(repo, "")
	if err != nil {
		return Known{}, nil, err
	}
	k := Known{Name: snap.Manifest.Name, Source: src, Repo: repo, Commit: snap.Commit, Added: now.UTC()}
	f, err := load(home)
	if err != nil {
		return Known{}, nil, err
	}
	if old, ok := f.Marketplaces[k.Name]; ok && old.Source != src {
		return Known{}, nil, fmt.Errorf("%w: a marketplace named %s was already added from %s", ErrMarketplace, k.Name, old.Source)
	}
	f.Marketplaces[k.Name] = k
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return Known{}, nil, err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return Known{}, nil, err
	}
	tmp := Path(home) + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return Known{}, nil, err
	}
	return k, snap, os.Rename(tmp, Path(home))
}

// Fetch returns the repository to read for src: a local path as it is (absolute), or for
// an http(s) URL a bare clone under $CWX_HOME/marketplaces/, fetched again when it
// exists. The URL is https to a public address, or one you typed as a literal address or
// localhost (a local server, which may be plain http); only its own origin is reached.
func Fetch(ctx context.Context, home, src string) (string, error) {
	if !strings.Contains(src, "://") {
		abs, err := filepath.Abs(src)
		if err != nil {
			return "", err
		}
		return abs, nil
	}
	if !strings.HasPrefix(src, "https://") && !strings.HasPrefix(src, "http://") {
		return "", fmt.Errorf("%w: %s: a marketplace URL must be https (or give a local path)", ErrMarketplace, redacted(src))
	}
	if err := checkGitURL(src); err != nil {
		return "", fmt.Errorf("%w: %v", ErrMarketplace, err)
	}
	u, _ := url.Parse(src)
	o, err := egress.OriginOf(u)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrMarketplace, err)
	}
	p, _, err := remotePolicy(src, &o)
	if err != nil {
		return "", err
	}
	dir := cacheDir(home, "", src)
	if err := syncRepo(ctx, dir, src, p); err != nil {
		return "", err
	}
	return dir, nil
}
