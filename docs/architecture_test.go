// The package table of architecture.md is data: these tests read it and
// hold every package of the module to its row.
package docs_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/parleybot/parley"

// row is one line of the package table: a package pattern and what it
// may import besides the standard library.
type row struct {
	pattern string
	allowed []string
}

// pkg is one package of the module and what it imports (its own files,
// not its tests'), both relative to the module for its own packages.
type pkg struct {
	path    string
	imports []string
}

// readRows reads the table under "## Packages" of the document.
func readRows(doc []byte) ([]row, error) {
	var rows []row
	in := false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Packages"
			continue
		case !in || !strings.HasPrefix(line, "| `"):
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
		if len(cells) != 3 {
			return nil, fmt.Errorf("a row of the package table has %d columns, want 3: %.60s…", len(cells), line)
		}
		r := row{pattern: strings.Trim(cells[0], "`")}
		for item := range strings.SplitSeq(cells[2], ", ") {
			if item == "—" { // the standard library alone
				continue
			}
			if !strings.HasPrefix(item, "`") || !strings.HasSuffix(item, "`") {
				return nil, fmt.Errorf("row %s: %q is not a `package`", r.pattern, item)
			}
			r.allowed = append(r.allowed, strings.Trim(item, "`"))
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no package table under ## Packages")
	}
	return rows, sc.Err()
}

// matches reports whether p fits pattern, where * stands for one path
// element and a trailing /... for anything below (and the path itself).
func matches(pattern, p string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	if pattern == "..." {
		return true
	}
	ok, err := path.Match(pattern, p)
	return err == nil && ok
}

// rowOf is the most specific row for p: fewest wildcards, then longest.
func rowOf(rows []row, p string) (row, bool) {
	var best row
	found := false
	score := func(r row) (int, int) { return strings.Count(r.pattern, "*"), -len(r.pattern) }
	for _, r := range rows {
		if !matches(r.pattern, p) {
			continue
		}
		if !found {
			best, found = r, true
			continue
		}
		sw, sl := score(r)
		bw, bl := score(best)
		if sw < bw || sw == bw && sl < bl {
			best = r
		}
	}
	return best, found
}

// allowedImport reports whether imp (module-relative for the module's own
// packages, else its full path) is one of r's.
func allowedImport(r row, imp string, own bool) bool {
	for _, a := range r.allowed {
		if own && matches(a, imp) {
			return true
		}
		if !own && (a == "..." || imp == a || strings.HasPrefix(imp, a+"/")) {
			return true
		}
	}
	return false
}

// violations are the imports of pkgs that their rows do not allow, and
// the packages without a row. std tells standard-library paths.
func violations(rows []row, pkgs []pkg, std func(string) bool) []string {
	var out []string
	for _, p := range pkgs {
		r, ok := rowOf(rows, p.path)
		if !ok {
			out = append(out, fmt.Sprintf("%s has no row in the package table", p.path))
			continue
		}
		for _, imp := range p.imports {
			rel, own := strings.CutPrefix(imp, module+"/")
			switch {
			case own && allowedImport(r, rel, true):
			case !own && std(imp):
			case !own && allowedImport(r, imp, false):
			default:
				out = append(out, fmt.Sprintf("%s imports %s, outside its row (%s)", p.path, imp, r.pattern))
			}
		}
	}
	return out
}

// forbiddenDeps are the adapters' transitive dependencies on the core, the
// agent or the store: an adapter compiles the contract and its SDK.
func forbiddenDeps(pkgs []pkg) []string {
	imports := map[string][]string{}
	for _, p := range pkgs {
		imports[p.path] = p.imports
	}
	var out []string
	for _, p := range pkgs {
		if !strings.HasPrefix(p.path, "adapters/") {
			continue
		}
		seen := map[string]bool{}
		var walk func(string, []string)
		walk = func(at string, via []string) {
			for _, imp := range imports[at] {
				rel, own := strings.CutPrefix(imp, module+"/")
				if !own || seen[rel] {
					continue
				}
				seen[rel] = true
				chain := append(slices.Clip(via), rel)
				if rel == "bot" || matches("agent/...", rel) || matches("store/...", rel) {
					out = append(out, fmt.Sprintf("%s depends on %s (%s)", p.path, rel, strings.Join(chain, " → ")))
					continue
				}
				walk(rel, chain)
			}
		}
		walk(p.path, []string{p.path})
	}
	return out
}

// listPackages is every package of the module with its imports, as the
// README's build tags compile it.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", "sqlite_fts5", "-json=ImportPath,Imports", "./...")
	cmd.Dir = ".."
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel, _ := strings.CutPrefix(p.ImportPath, module+"/")
		pkgs = append(pkgs, pkg{path: rel, imports: p.Imports})
	}
	return pkgs
}

// isStd tells a standard-library path: no dot in its first element.
func isStd(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".") && imp != "C"
}

func TestPackagesKeepToTheirRows(t *testing.T) {
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readRows(doc)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := listPackages(t)
	for _, v := range violations(rows, pkgs, isStd) {
		t.Error(v)
	}
	for _, v := range forbiddenDeps(pkgs) {
		t.Error(v)
	}
}

// The checks themselves, on a module made up for them: a stray import is
// caught, directly or through another package.
func TestStrayImportsAreCaught(t *testing.T) {
	rows, err := readRows([]byte("## Packages\n\n| package | owns | may import |\n|---|---|---|\n" +
		"| `chat` | the contract | — |\n" +
		"| `adapters/*` | platforms | `chat`, `bot/format`, `github.com/slack-go/slack` |\n" +
		"| `adapters/inbound` | a listener | — |\n" +
		"| `bot/format` | rendering | `chat` |\n" +
		"| `bot` | the core | `chat`, `agent/...` |\n" +
		"| `agent/...` | the agent | — |\n\n## Next\n\n| `x` | not a row | `y` |\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := func(path string, imports ...string) pkg {
		for i, imp := range imports {
			if !strings.Contains(imp, ".") && !isStd(imp) || strings.HasPrefix(imp, "own:") {
				imports[i] = module + "/" + strings.TrimPrefix(imp, "own:")
			}
		}
		return pkg{path: path, imports: imports}
	}
	tests := []struct {
		name      string
		pkgs      []pkg
		rowsWant  []string
		depsWant  []string
		wantClean bool
	}{
		{name: "within the rows", wantClean: true, pkgs: []pkg{
			p("chat", "context", "net/http"),
			p("adapters/slack", "own:chat", "github.com/slack-go/slack", "github.com/slack-go/slack/socketmode"),
			p("bot", "own:chat", "own:agent/llm"),
			p("agent/llm"),
		}},
		{name: "an adapter imports the agent", pkgs: []pkg{
			p("chat"), p("agent/kb"),
			p("adapters/slack", "own:chat", "own:agent/kb"),
		}, rowsWant: []string{"adapters/slack imports " + module + "/agent/kb"},
			depsWant: []string{"adapters/slack depends on agent/kb"}},
		{name: "an adapter reaches the core through an allowed package", pkgs: []pkg{
			p("chat"), p("bot", "own:chat"),
			p("bot/format", "own:chat", "own:bot"),
			p("adapters/discord", "own:bot/format"),
		}, rowsWant: []string{"bot/format imports " + module + "/bot"},
			depsWant: []string{"adapters/discord depends on bot (adapters/discord → bot/format → bot)"}},
		{name: "a specific row beats the wildcard", pkgs: []pkg{
			p("adapters/inbound", "own:chat"),
		}, rowsWant: []string{"adapters/inbound imports " + module + "/chat, outside its row (adapters/inbound)"}},
		{name: "another module not listed", pkgs: []pkg{
			p("adapters/telegram", "github.com/go-telegram-bot-api/telegram-bot-api/v5"),
		}, rowsWant: []string{"adapters/telegram imports github.com/go-telegram-bot-api"}},
		{name: "a package without a row", pkgs: []pkg{p("store")},
			rowsWant: []string{"store has no row"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotRows := violations(rows, tt.pkgs, isStd)
			gotDeps := forbiddenDeps(tt.pkgs)
			if tt.wantClean {
				if len(gotRows)+len(gotDeps) > 0 {
					t.Errorf("violations in a clean module: %q %q", gotRows, gotDeps)
				}
				return
			}
			check := func(kind string, got, want []string) {
				if len(got) != len(want) {
					t.Errorf("%s: got %q, want %d like %q", kind, got, len(want), want)
					return
				}
				for i := range want {
					if !strings.HasPrefix(got[i], want[i]) {
						t.Errorf("%s[%d] = %q, want it to start %q", kind, i, got[i], want[i])
					}
				}
			}
			check("rows", gotRows, tt.rowsWant)
			check("deps", gotDeps, tt.depsWant)
		})
	}
}
