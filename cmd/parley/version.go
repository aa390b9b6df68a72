package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at build time (.ci/release does):
//
//	-ldflags "-X main.version=v1.2.3 -X main.commit=0123abc -X main.date=2026-12-06T09:00:00Z"
//
// A plain `go build` leaves them empty-ish; buildInfo then fills in what
// the Go toolchain recorded (the module version, the VCS revision and
// time when built with -buildvcs).
var (
	version = "dev"
	commit  = ""
	date    = ""
)

// buildInfo is the version, commit and build date this binary reports.
func buildInfo() (v, c, d string) {
	v, c, d = version, commit, date
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v, orUnknown(c), orUnknown(d)
	}
	if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if c == "" {
				c = s.Value
			}
		case "vcs.time":
			if d == "" {
				d = s.Value
			}
		}
	}
	return v, orUnknown(c), orUnknown(d)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// versionLine is what `parley --version` prints (cobra adds "parley
// version " before it).
func versionLine() string {
	v, c, d := buildInfo()
	return fmt.Sprintf("%s (commit %s, built %s, %s, %s/%s)", v, c, d, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// versionString is what `parley version` prints.
func versionString() string { return "parley " + versionLine() }

func newVersionCmd(e *environment) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(e.stdout, versionString())
			return err
		},
	}
}
