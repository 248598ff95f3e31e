package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core/bench"
)

// benchGRPCEchoCmd is `cwx bench grpc-echo READ WRITE OWN-WRITE-BUFFER GOMAXPROCS`, the gRPC echo
// `cwx bench` measures the hop against: go-plugin's server answering each Frame of the
// Channel with itself, started by the bench through go-plugin.
func benchGRPCEchoCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "grpc-echo",
		Short:  "The gRPC echo `cwx bench` measures, served through go-plugin",
		Hidden: true,
		RunE: func(_ *cobra.Command, args []string) error {
			o, err := bench.ParseEchoArgs(args)
			if err != nil {
				return exitf(ExitUsage, "%v", err)
			}
			return bench.ServeGRPCEcho(o)
		},
	}
}

// benchPipeEchoCmd is `cwx bench pipe-echo`: stdin copied to stdout, the bare pipe the gRPC
// echo is measured against.
func benchPipeEchoCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "pipe-echo",
		Short:  "The pipe echo `cwx bench` measures, stdin to stdout",
		Hidden: true,
		Args:   exactArgs(0),
		RunE:   func(*cobra.Command, []string) error { return bench.ServePipeEcho(os.Stdin, os.Stdout) },
	}
}
