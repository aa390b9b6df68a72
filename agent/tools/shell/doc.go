// Package shell provides Parley's `shell` tool: it runs one command line
// with `/bin/sh -c` in a workspace directory of the conversation's session
// and returns what the command printed.
//
// # What protects the host
//
// First, a person's approval. The tool reports agent.PolicyAlways, so the
// runner asks before every call. The runner lets configuration
// (Runner.Policies) win over a tool's own policy; the wiring must never
// put "shell" in that map with any other value — for this tool no
// configuration may lower the policy.
//
// Second, a sandbox, because approvers click through and commands can be
// written to hide what they do (sandbox.go has the design):
//
//   - Landlock confines every process of the command to its own session
//     workspace (read-write, with $TMPDIR inside it) and a few devices,
//     plus read and execute on the system's directories (/usr, /bin,
//     /lib*, /etc, /opt, /proc). Parley's data directory (the database,
//     other sessions' workspaces) and config file are out of reach even
//     where they lie below one of those. Landlock also forbids reading
//     other processes' memory and environment, and from ABI 6 signalling
//     processes outside the sandbox.
//   - All capabilities are dropped and no_new_privs is set, so a Parley
//     running as root hands the command no root powers, and setuid
//     programs cannot regain any.
//   - Resource limits bound CPU time, memory, file size and the number of
//     processes (Limits).
//   - A supervisor process, child subreaper of the whole tree, kills
//     everything the command started when the shell exits, on timeout and
//     on cancellation, including processes that called setsid or
//     daemonized.
//   - Parley itself is non-dumpable (internal/harden), so even without
//     Landlock a same-user process cannot read its environment or memory.
//
// Where the kernel has no Landlock the tool refuses every command unless
// the operator set Options.Unsandboxed (tools.shell.unsandboxed); then
// everything above but Landlock still applies.
//
// Third, tripwires that stay in place under the sandbox:
//
//   - The blocklist (blocklist.go) refuses the handful of commands that
//     are catastrophic or that reach Parley's own secrets (wiping or
//     formatting disks, fork bombs, power-off, Parley's config and
//     database, /proc/*/environ). It matches text, so it is easy to get
//     around; it stops the obvious mistake an approver might click
//     through, and no approval overrides it.
//   - The environment is built from scratch (env.go), so the command does
//     not inherit Parley's platform tokens or API keys.
//
// The network is restricted by tools.shell.network (network.go, proxy.go):
// by default a command runs in an empty network namespace; "public" adds
// a proxy that connects only to public addresses; "all" is the host's
// network. Every descriptor above stderr is closed before the command
// runs. The workspace has a byte budget enforced while the command runs,
// and the data directory a free-space floor (budget.go). Operators who
// cannot trust the people who approve should still run Parley in a
// container or VM that holds nothing else of value.
package shell
