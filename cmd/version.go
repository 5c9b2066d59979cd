package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set by the release build (-ldflags "-X github.com/hdig/hdig/cmd.version=…").
var version = ""

func init() { register(newVersionCmd) }

func newVersionCmd(ios *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print hdig's version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprintln(ios.Out, versionLine())
			return nil
		},
	}
}

// versionLine is what hdig version and hdig --version print.
func versionLine() string {
	return fmt.Sprintf("hdig %s (%s, %s/%s)", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
