// Package shell provides Parley's `shell` tool: it runs one command line
// with `/bin/sh -c` in a workspace directory of the conversation's session
// and returns what the command printed.
//
// # What actually protects the host
//
// A person's approval. The tool reports agent.PolicyAlways, so the runner
// asks before every call. The runner lets configuration (Runner.Policies)
// win over a tool's own policy; the wiring must never put "shell" in that
// map with any other value — for this tool no configuration may lower the
// policy.
//
// Everything else in this package is defence in depth on top of that
// approval, not a sandbox. Commands run as Parley's own user, on the host,
// with Parley's privileges:
//
//   - The blocklist (blocklist.go) is a tripwire for the handful of
//     commands that are catastrophic or that reach Parley's own secrets
//     (wiping or formatting disks, fork bombs, power-off, Parley's config
//     and database, /proc/*/environ). It matches text, so anyone who wants
//     to get around it can (variables, globs, base64, a script file); it
//     exists to stop the obvious mistake an approver might click through.
//     No approval overrides it.
//   - The environment is built from scratch (env.go), so the command does
//     not inherit Parley's platform tokens or API keys. Files it can read
//     are another matter: that is what the protected-path tripwire and
//     running Parley in a container are for.
//   - The working directory and $HOME are a per-session workspace under
//     <DataDir>/workspace. It is a convenience that keeps sessions' files
//     apart, not a jail: `cd ..` works.
//   - Each command runs in its own process group, which is killed on
//     timeout, on cancellation and as soon as the shell exits, so nothing
//     it started outlives the call.
//
// Operators who cannot fully trust the people who approve should run
// Parley in a container or VM that holds nothing else of value.
package shell
