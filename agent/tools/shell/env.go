package shell

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/parleybot/parley/internal/lazyre"
)

// safePath is the PATH every command gets. It is fixed rather than
// inherited so the command cannot be steered by whatever directories
// Parley's own environment happened to put first.
const safePath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// fixedNames are set by environment itself; ExtraEnv cannot override them
// (HOME and TMPDIR must stay in the workspace, PATH must stay safePath).
var fixedNames = map[string]bool{"PATH": true, "HOME": true, "TMPDIR": true, "LANG": true, "TERM": true}

// secretWords mark a variable name as likely to hold a credential. The
// check is on the name only: we cannot tell a secret value from a harmless
// one, and an operator allowlisting GITHUB_TOKEN by mistake is exactly the
// case this guards against.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASS", "CREDENTIAL", "AUTH", "COOKIE", "SESSION", "PRIVATE"}

// forbiddenPrefixes are Parley's configuration (PARLEY_<SECTION>_<KEY>)
// and the provider SDKs' settings: never passed, whatever they are called.
var forbiddenPrefixes = []string{"PARLEY_", "OPENAI_", "ANTHROPIC_"}

var envName = lazyre.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// passable reports whether an allowlisted variable may reach a command.
func passable(name string) bool {
	if !envName().MatchString(name) || fixedNames[name] {
		return false
	}
	upper := strings.ToUpper(name)
	for _, p := range forbiddenPrefixes {
		if strings.HasPrefix(upper, p) {
			return false
		}
	}
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return false
		}
	}
	return true
}

// passableNames filters the operator's allowlist once, at construction.
// Refused names are dropped rather than failing startup: the allowlist is
// a convenience, and refusing to start over it would push operators to
// work around the filter.
func passableNames(names []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if passable(n) && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// environment builds a command's environment from scratch: nothing of
// Parley's own environment reaches it except the allowlisted names.
// TMPDIR is the workspace's private tmp: the sandbox denies /tmp. In
// public network mode the proxy variables point at the sandbox's proxy,
// whatever the allowlist passes.
func environment(home string, extra []string, network Network) []string {
	env := []string{
		"PATH=" + safePath,
		"HOME=" + home,
		"TMPDIR=" + filepath.Join(home, tmpName),
		"LANG=C.UTF-8",
		"TERM=dumb",
	}
	if network == NetworkPublic {
		env = append(env, proxyEnv()...)
	}
	for _, name := range extra {
		if network == NetworkPublic && isProxyVar(name) {
			continue
		}
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}
