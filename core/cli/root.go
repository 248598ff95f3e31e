package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Main runs the cwx CLI with args and returns the process exit status.
// SIGTERM cancels the command's context, and ends the process termGrace later if the
// command has not returned by then (watchTerm).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := watchTerm(context.Background(), stderr, termGrace, os.Exit)
	defer stop()
	root := NewRootCommand(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Err != nil {
		writeStyled(stderr, styleRed, "cwx:")
		printf(stderr, " %s\n", advise(err))
	}
	return exitCode(err)
}

// NewRootCommand builds the command tree. Tests call it with buffers for the streams.
func NewRootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "cwx",
		Short: "Run coding-agent plugins out of process, with every decision kept in the core",
		Long: "Run coding-agent plugins out of process, with every decision kept in the core.\n\n" +
			"Logs: the core's lines go to stderr at --log-level, or CWX_LOG when the flag is not\n" +
			"given (trace, debug, info, warn, error, off; default error). The plugins' own lines\n" +
			"(console.* and ctx.logger) are kept, whatever the level, in $CWX_HOME/logs: cwx logs.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&logLevelFlag, "log-level", "", "the level of the core's log lines on stderr: trace, debug, info, warn, error or off (default CWX_LOG, else error)")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: err}
	})
	for _, add := range commandGroups {
		root.AddCommand(add())
	}
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("unknown command %q; run `cwx --help` for the list", args[0])}
		}
		return cmd.Help()
	}
	usageArgs(root)
	return root
}

// usageArgs makes every argument-validation failure in the tree exit with ExitUsage.
func usageArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		usageArgs(sub)
	}
}

// commandGroups lists the constructors of the top-level commands; each command file
// registers its own from an init function so that files stay independent.
var commandGroups []func() *cobra.Command

func register(f func() *cobra.Command) { commandGroups = append(commandGroups, f) }
