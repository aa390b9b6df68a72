package config

import "fmt"

// The tools.shell.network modes; agent/tools/shell.ParseNetwork accepts
// the same words (this package does not import the shell).
var shellNetworks = []string{"none", "public", "all"}

// DefaultWorkspaceMB is tools.shell.workspace_mb's default.
const DefaultWorkspaceMB = 200

func defaultShell() Shell { return Shell{Network: "none", WorkspaceMB: DefaultWorkspaceMB} }

// validate checks the tools.shell.* keys.
func (s *Shell) validate() []string {
	p := outOfRange(bound[int]{"tools.shell.workspace_mb", s.WorkspaceMB, 1, 1 << 20})
	for _, n := range shellNetworks {
		if s.Network == n {
			return p
		}
	}
	return append(p, fmt.Sprintf("tools.shell.network: %q is not valid; want none, public or all", Quiet(s.Network)))
}
