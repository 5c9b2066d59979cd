// Package cmd holds hdig's commands: flags and output only. The work is done
// by the verify, patch, fetch, cache and server packages.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// commands lists the constructors of the subcommands. Each command file adds
// its own in an init function, so the root never needs editing.
var commands []func(*IOStreams) *cobra.Command

func register(f func(*IOStreams) *cobra.Command) { commands = append(commands, f) }

// NewRootCmd builds the command tree around the given streams.
func NewRootCmd(ios *IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "hdig",
		Short: "HTTP client, verifier and reference origin for RFC 9530 digests and RFC 3229 deltas",
		Long: `hdig fetches like curl but asks for and verifies RFC 9530 digests
(Repr-Digest, Content-Digest), fetches deltas against cached versions
(RFC 3229, 226 IM Used), audits origins, and serves as a reference origin.` + exitStatusHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	// --version prints what hdig version prints (cobra handles the flag;
	// declaring it first keeps -v free for the commands' --verbose).
	root.Flags().Bool("version", false, "print hdig's version, as hdig version does")
	root.Version = versionString()
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageHelpf(c, "%v", err)
	})
	for _, f := range commands {
		root.AddCommand(f(ios))
	}
	completionArgs(root)
	usageArgs(root)
	return root
}

// completionArgs makes an unknown shell a usage error: cobra's completion
// command, a group that cannot run, printed its help for any argument and
// exited 0. Runnable (its help, as before, without an argument), it has
// cobra check its arguments: "unknown command", exit 2 (Run).
func completionArgs(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		}
	}
}

// usageArgs makes every command's argument-count errors usage errors
// (exit 2), as bad flags are.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			var ee *exitError
			if err == nil || errors.As(err, &ee) {
				return err
			}
			return usageHelpf(cmd, "%v", err)
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// Main runs hdig with os.Args and returns the exit status.
func Main() int {
	return Run(context.Background(), System(), os.Args[1:])
}

// Run runs hdig with the given streams and arguments and returns the exit
// status; tests call it in-process.
func Run(ctx context.Context, ios *IOStreams, args []string) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := NewRootCmd(ios)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	interrupted := ctx.Err() != nil && errors.Is(err, context.Canceled)
	code := ExitCode(err)
	if strings.HasPrefix(err.Error(), "unknown command ") {
		code = ExitUsage // cobra's error for a mistyped subcommand
	}
	if interrupted {
		code = ExitInterrupted
	}
	var quiet *silentError
	if !errors.As(err, &quiet) {
		if interrupted {
			fmt.Fprintln(ios.ErrOut, "hdig: interrupted")
		} else {
			printError(ios.ErrOut, err)
		}
	}
	return code
}
