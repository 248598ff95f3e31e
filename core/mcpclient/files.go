package mcpclient

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cwx-dev/cwx/core/config"
	"github.com/cwx-dev/cwx/core/internal/boundedfile"
	"github.com/cwx-dev/cwx/core/mcpfile"
)

// The servers of an mcp_servers_file (a Claude Code .mcp.json or a VS Code mcp.json, read
// by core/mcpfile) are not config.toml's: like a plugin's, each runs only after `cwx mcp
// review NAME` showed what it would run or reach and `cwx mcp trust NAME --token T`
// trusted exactly that. The token is bound to the file's path and the server's identity
// after expansion, so an edit of the file that changes what runs, or a variable that now
// expands otherwise, needs a new review.

// maxMCPFileBytes bounds one mcp_servers_file.
const maxMCPFileBytes = 1 << 20

// FileServers are the servers of one mcp_servers_file, expanded.
type FileServers struct {
	Path    string
	Entries []mcpfile.Entry
}

// ReadFiles reads and expands each file of paths with lookup (the core's environment):
// ${VAR} and ${VAR:-default} of Claude Code's files, ${env:VAR} and ${workspaceFolder} (the
// folder holding .vscode/) of VS Code's. A file that cannot be read, decoded or expanded
// is left out, with its error; a missing file is not an error (a workspace may have none).
func ReadFiles(paths []string, lookup func(string) (string, bool)) ([]FileServers, []error) {
	var out []FileServers
	var errs []error
	for _, p := range paths {
		data, err := boundedfile.Read(p, maxMCPFileBytes, true)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("mcp_servers_file %s: %w", p, err))
			continue
		}
		f, err := mcpfile.Decode(data)
		if err != nil {
			errs = append(errs, fmt.Errorf("mcp_servers_file %s: %w", p, err))
			continue
		}
		folder := filepath.Dir(p)
		if filepath.Base(folder) == ".vscode" {
			folder = filepath.Dir(folder)
		}
		entries, err := f.Expand(mcpfile.Vars{Lookup: lookup, WorkspaceFolder: folder})
		if err != nil {
			errs = append(errs, fmt.Errorf("mcp_servers_file %s: %w", p, err))
			continue
		}
		out = append(out, FileServers{Path: p, Entries: entries})
	}
	return out, errs
}

// fileCandidates are the servers of files as cwx would run them: named as a plugin's are
// ([PluginServerName]), asked approval, with the default bounds.
func fileCandidates(files []FileServers) []Candidate {
	var out []Candidate
	for _, f := range files {
		for _, e := range f.Entries {
			srv := e.Server
			srv.Name, srv.Source, srv.Approval = PluginServerName(e.Name), f.Path, config.MCPApprovalAsk
			srv.TimeoutS, srv.MaxResultBytes = config.DefaultMCPTimeoutS, config.DefaultMCPResultBytes
			c := Candidate{Server: srv}
			if srv.Name == "" {
				c.Server.Name = e.Name
				c.Problem = fmt.Sprintf("no cwx name fits %q (^[a-z][a-z0-9-]{0,31}$)", e.Name)
			}
			out = append(out, c)
		}
	}
	return out
}
