package mcpfile

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cwx-dev/cwx/core/config"
)

// Vars is what a file's ${…} may name.
type Vars struct {
	// Lookup is the environment cwx runs in; nil is os.LookupEnv.
	Lookup func(name string) (string, bool)
	// WorkspaceFolder is the folder the file belongs to: X for X/.mcp.json and for
	// X/.vscode/mcp.json. It is VS Code's ${workspaceFolder}, and where a stdio server runs
	// unless VS Code's cwd says otherwise.
	WorkspaceFolder string
}

// Entry is one server of a file, expanded.
type Entry struct {
	Name string // as written in the file
	// Server has Transport, and Command, Args, Env and Cwd (stdio) or URL and Headers
	// (remote, checked by config.CheckRemoteMCP); Name, Approval, TimeoutS,
	// MaxResultBytes and Source are left for the caller.
	Server config.MCPServer
}

// Expand expands the servers' ${…} with v, sorted by name. An error names the server, the
// field and the variable, never a value.
func (f *File) Expand(v Vars) ([]Entry, error) {
	if v.Lookup == nil {
		v.Lookup = os.LookupEnv
	}
	out := make([]Entry, 0, len(f.Servers))
	for _, s := range f.Servers {
		x := expander{file: f, vars: v, server: s.Name}
		srv, err := x.expandServer(s)
		if err != nil {
			return nil, err
		}
		out = append(out, Entry{Name: s.Name, Server: srv})
	}
	return out, nil
}

// expander expands the strings of one server.
type expander struct {
	file   *File
	vars   Vars
	server string
}

func (x expander) bad(key, reason string) error {
	return &Error{Server: x.server, Key: key, Reason: reason}
}

func (x expander) lookup(name string) (string, bool) { return x.vars.Lookup(name) }

// expandServer expands s into the config.MCPServer it describes.
func (x expander) expandServer(s Server) (config.MCPServer, error) {
	srv := config.MCPServer{Transport: s.Transport}
	var err error
	if s.Remote() {
		if srv.URL, err = x.expand("url", s.URL); err != nil {
			return srv, err
		}
		headers := map[string]string{}
		for _, name := range slices.Sorted(maps.Keys(s.Headers)) {
			if headers[name], err = x.expand("headers."+name, s.Headers[name]); err != nil {
				return srv, err
			}
		}
		if err := config.CheckRemoteMCP(&srv, headers, ""); err != nil {
			return srv, x.remoteError(err, s.URL, srv.URL)
		}
		return srv, nil
	}
	if srv.Command, err = x.stdio("command", s.Command); err != nil {
		return srv, err
	}
	if strings.TrimSpace(srv.Command) == "" {
		return srv, x.bad("command", fmt.Sprintf("%s expands to nothing; set what it names, or write the program", strconv.Quote(s.Command)))
	}
	for i, a := range s.Args {
		e, err := x.stdio(fmt.Sprintf("args[%d]", i), a)
		if err != nil {
			return srv, err
		}
		srv.Args = append(srv.Args, e)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Env)) {
		e, err := x.stdio("env."+name, s.Env[name])
		if err != nil {
			return srv, err
		}
		if srv.Env == nil {
			srv.Env = map[string]string{}
		}
		srv.Env[name] = e
	}
	if s.Cwd != "" {
		cwd, err := x.stdio("cwd", s.Cwd)
		if err != nil {
			return srv, err
		}
		if !filepath.IsAbs(cwd) {
			return srv, x.bad("cwd", fmt.Sprintf("%s is not an absolute path once expanded; write ${workspaceFolder}/… or an absolute path, or leave cwd out to run the server in the workspace", strconv.Quote(s.Cwd)))
		}
		srv.Cwd = filepath.Clean(cwd)
	} else if x.vars.WorkspaceFolder != "" {
		srv.Cwd = filepath.Clean(x.vars.WorkspaceFolder)
	}
	if strings.ContainsRune(srv.Command, '/') && !filepath.IsAbs(srv.Command) && srv.Cwd != "" {
		srv.Command = filepath.Join(srv.Cwd, srv.Command)
	}
	return srv, nil
}

// stdio expands a string a process is started with, which may hold no NUL.
func (x expander) stdio(key, s string) (string, error) {
	e, err := x.expand(key, s)
	if err == nil && strings.ContainsRune(e, 0) {
		err = x.bad(key, "holds a NUL once expanded, which a program's arguments and environment cannot; check the variables it names")
	}
	return e, err
}

// remoteError is config.CheckRemoteMCP's refusal as an *Error. Its reason may quote the
// URL: when the URL named variables, it quotes the URL as written instead.
func (x expander) remoteError(err error, written, expanded string) error {
	var re *config.RemoteMCPError
	if !errors.As(err, &re) {
		return x.bad("url", "is not a URL cwx can reach")
	}
	reason := re.Reason
	if written != expanded {
		reason = strings.ReplaceAll(reason, strconv.Quote(expanded), strconv.Quote(written)+" (once expanded)")
		if expanded != "" && strings.Contains(reason, expanded) {
			reason = "is not an http or https URL with a host once expanded; check the variables it names"
		}
	}
	return x.bad(re.Key, reason)
}

// expand is s with its ${…} replaced in the file's format. A ${ without its } is left as
// written, as both tools leave it.
func (x expander) expand(key, s string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+2:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+2+j]
		var v string
		var err error
		if x.file.Format == VSCode {
			v, err = x.vscode(key, ref)
		} else {
			v, err = x.claude(key, ref)
		}
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		if b.Len() > MaxExpanded {
			return "", x.bad(key, fmt.Sprintf("expands to more than %d bytes", MaxExpanded))
		}
		s = s[i+2+j+1:]
	}
	b.WriteString(s)
	if b.Len() > MaxExpanded {
		return "", x.bad(key, fmt.Sprintf("expands to more than %d bytes", MaxExpanded))
	}
	return b.String(), nil
}

// claude is Claude Code's ${NAME} or ${NAME:-default} (the default as written, to the
// closing brace); ${env:NAME}, the form of config.toml and VS Code, is read as ${NAME}.
// ${} is left as written, as Claude Code leaves it.
func (x expander) claude(key, ref string) (string, error) {
	if ref == "" {
		return "${}", nil
	}
	name, def, hasDef := strings.Cut(ref, ":-")
	if v, ok := x.lookup(strings.TrimPrefix(name, "env:")); ok {
		return v, nil
	}
	if hasDef {
		return def, nil
	}
	return "", x.bad(key, fmt.Sprintf("${%s} is not set; set %s in the environment cwx runs in, or give a default: ${%s:-value}", name, strings.TrimPrefix(name, "env:"), name))
}

// editorVars are VS Code's variables of the editor's state, which cwx does not have.
var editorVars = []string{
	"cwd", "file", "fileBasename", "fileBasenameNoExtension", "fileDirname", "fileDirnameBasename",
	"fileExtname", "fileWorkspaceFolder", "relativeFile", "relativeFileDirname", "lineNumber",
	"columnNumber", "selectedText", "execPath", "defaultBuildTask", "extensionInstallFolder",
}

// vscode is one of VS Code's variables.
func (x expander) vscode(key, ref string) (string, error) {
	what, arg, _ := strings.Cut(ref, ":")
	switch {
	case ref == "workspaceFolder" || ref == "workspaceFolderBasename":
		if x.vars.WorkspaceFolder == "" {
			return "", x.bad(key, "${"+ref+"} has no folder here: the file is not at FOLDER/.vscode/mcp.json; write the path")
		}
		if ref == "workspaceFolderBasename" {
			return filepath.Base(x.vars.WorkspaceFolder), nil
		}
		return x.vars.WorkspaceFolder, nil
	case ref == "userHome":
		if h, ok := x.lookup("HOME"); ok && h != "" {
			return h, nil
		}
		return "", x.bad(key, "${userHome} needs HOME, which is not set in the environment cwx runs in; set it, or write the path")
	case ref == "pathSeparator" || ref == "/":
		return string(filepath.Separator), nil
	case what == "env" && arg != "":
		if v, ok := x.lookup(arg); ok {
			return v, nil
		}
		return "", x.bad(key, fmt.Sprintf("${env:%s} is not set; set %s in the environment cwx runs in, or write the value", arg, arg))
	case what == "input":
		reason := fmt.Sprintf("${input:%s} asks VS Code to prompt for a value", arg)
		if i := slices.IndexFunc(x.file.Inputs, func(in Input) bool { return in.ID == arg }); i >= 0 && x.file.Inputs[i].Description != "" {
			reason += fmt.Sprintf(" (%q)", x.file.Inputs[i].Description)
		}
		return "", x.bad(key, reason+", and cwx cannot prompt for inputs; write the value, or ${env:NAME} and set NAME in the environment cwx runs in")
	case what == "config":
		return "", x.bad(key, "${"+ref+"} reads VS Code's settings, which cwx does not; write the value, or ${env:NAME}")
	case what == "command":
		return "", x.bad(key, "${"+ref+"} runs a VS Code command, which cwx cannot; write the value, or ${env:NAME}")
	case what == "workspaceFolder":
		return "", x.bad(key, "${"+ref+"} names a folder of a multi-root workspace, which cwx does not know; write the path")
	case slices.Contains(editorVars, ref):
		return "", x.bad(key, "${"+ref+"} is the editor's state, which cwx does not have; write the value")
	}
	return "", x.bad(key, fmt.Sprintf("${%s} is not a variable cwx knows; write the value, or one of ${env:NAME}, ${workspaceFolder}, ${userHome}, ${pathSeparator}", ref))
}
