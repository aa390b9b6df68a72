package shell

import (
	"context"
	"os/exec"
	"testing"

	"github.com/parleybot/parley/agent"
)

// BenchmarkEchoHi measures what the sandbox costs per call: `echo hi`
// run by a bare /bin/sh (what the tool did before it had a sandbox), by
// the supervisor without Landlock (unsandboxed by config) and fully
// sandboxed. Both sandbox variants re-execute this test binary twice.
func BenchmarkEchoHi(b *testing.B) {
	b.Run("bare-sh", func(b *testing.B) {
		for b.Loop() {
			if out, err := exec.Command(DefaultShell, "-c", "echo hi").Output(); err != nil || string(out) != "hi\n" {
				b.Fatalf("%q, %v", out, err)
			}
		}
	})
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			tl := newTool(b, nil)
			tl.settings.sandbox.protection = m.protection(tl.settings.sandbox.protection)
			if !tl.settings.sandbox.protection.Sandboxed() && m.name == "sandboxed" {
				b.Skip("no Landlock on this kernel")
			}
			args := argsJSON(b, Args{Command: "echo hi"})
			caller := agent.Caller{SessionID: "bench"}
			for b.Loop() {
				if out, err := tl.Execute(context.Background(), caller, args); err != nil || out != "hi\n" {
					b.Fatalf("%q, %v", out, err)
				}
			}
		})
	}
}

// BenchmarkShellNetwork measures what the network namespace costs per
// call: `echo hi`, fully sandboxed, with the host's network (all), in a
// namespace made by root (none, netns) or through a user namespace
// (none, userns+netns), and with the public mode's proxy handed over.
//
//	go test -tags sqlite_fts5 -run '^$' -bench ShellNetwork -benchtime 50x ./agent/tools/shell/
func BenchmarkShellNetwork(b *testing.B) {
	for _, m := range []struct {
		name  string
		mode  Network
		netns string
	}{
		{"all", NetworkAll, ""},
		{"none-netns", NetworkNone, netnsPlain},
		{"none-userns", NetworkNone, netnsUser},
		{"public-netns", NetworkPublic, netnsPlain},
	} {
		b.Run(m.name, func(b *testing.B) {
			tl := newTool(b, func(o *Options) { o.Network = m.mode })
			if m.mode.isolated() {
				if tl.settings.sandbox.protection.NetNS == "" {
					b.Skip("no network namespaces on this host")
				}
				tl.settings.sandbox.protection.NetNS = m.netns
			}
			args := argsJSON(b, Args{Command: "echo hi"})
			caller := agent.Caller{SessionID: "bench"}
			for b.Loop() {
				if out, err := tl.Execute(context.Background(), caller, args); err != nil || out != "hi\n" {
					b.Fatalf("%q, %v", out, err)
				}
			}
		})
	}
}
