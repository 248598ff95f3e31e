package cli

import (
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core/bundle"
)

// VersionInfo is the --json output of `cwx version`.
type VersionInfo struct {
	Module    string `json:"module"`        // module path
	Version   string `json:"version"`       // module version, "(devel)" for a local build
	GoVersion string `json:"go_version"`    // toolchain that built the binary
	Bundle    string `json:"bundle_sha256"` // the embedded extension-host bundle, as host/hello reports it
}

func versionInfo() VersionInfo {
	v := VersionInfo{Module: "github.com/cwx-dev/cwx", Version: "(devel)", GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module = bi.Main.Path
		if bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
	}
	v.Bundle = bundle.EmbeddedSHA256()
	return v
}

func init() {
	register(func() *cobra.Command {
		var asJSON bool
		cmd := &cobra.Command{
			Use:   "version",
			Short: "Print the cwx version, the Go version and the embedded host bundle digest",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				v := versionInfo()
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), v)
				}
				out := cmd.OutOrStdout()
				printf(out, "cwx %s (%s)\n", v.Version, v.Module)
				printf(out, "go  %s\n", v.GoVersion)
				printf(out, "extension host bundle sha256:%s\n", v.Bundle)
				return nil
			},
		}
		cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
		return cmd
	})
}
