package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestInstalledSkillRunsOnlyAfterApproval, with the real binary: a skill
// folder in the open format installs (`parley skills add`, its judge
// vetting it) without running its script; `parley skills ls` and /skills
// show it with its origin; the next turn's prompt offers it; skill_read
// puts the script in the conversation's workspace; the script runs only
// when the person approves the shell command; export writes it back in
// the same format, and import reads that back.
func TestInstalledSkillRunsOnlyAfterApproval(t *testing.T) {
	for _, tt := range []struct {
		answer, wantResult string
		ran                bool
	}{
		{"y", "the hello report ran", true},
		{"n", "denied by ana", false},
	} {
		t.Run(tt.answer, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			sb := newSandbox(t, "PARLEY_TOOLS_SHELL_ENABLED=true").withLLM(srv)
			skill := filepath.Join(sb.dir, "hello-report")
			os.MkdirAll(filepath.Join(skill, "scripts"), 0o755)
			os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: hello-report\n"+
				"description: when asked for the hello report, run scripts/report.sh\n---\n\n"+
				"Run scripts/report.sh with the shell tool and give its output.\n"), 0o644)
			os.WriteFile(filepath.Join(skill, "scripts", "report.sh"), []byte("echo the hello report ran > ran.txt\ncat ran.txt\n"), 0o755)

			srv.Enqueue(llmtest.Text("SAFE")) // the memory guard's judge
			// Ana's own scope: /skills at her terminal lists it (the
			// operator's scope is offered everywhere, but listed by no place).
			const ana = "person:console:ana"
			out, errOut, code := sb.run(t, "", "skills", "add", "--scope", ana, skill)
			if code != 0 || !strings.Contains(out, ana+`: installed "hello-report" (`+skill+`)`) {
				t.Fatalf("skills add: exit %d\n%s\n%s", code, out, errOut)
			}
			if ran(sb.dir) {
				t.Fatal("installing ran the script")
			}
			out, _, _ = sb.run(t, "", "skills", "ls")
			if !strings.Contains(out, ana) || !strings.Contains(out, "hello-report") || !strings.Contains(out, skill) {
				t.Fatalf("skills ls:\n%s", out)
			}

			srv.Enqueue(
				llmtest.ToolCall("c1", "skill_read", `{"name":"hello-report"}`),
				llmtest.ToolCall("c2", "shell", `{"command":"sh .skills/hello-report/scripts/report.sh"}`),
				llmtest.Text("Done."),
			)
			out, errOut, code = sb.run(t, "/skills\ngive me the hello report\n"+tt.answer+"\n/quit\n", "chat")
			if code != 0 {
				t.Fatalf("chat: exit %d\n%s\n%s", code, out, errOut)
			}
			if !strings.Contains(out, "hello-report — when asked for the hello report") || !strings.Contains(out, "installed from "+skill) {
				t.Errorf("/skills does not show it with its origin:\n%s", out)
			}
			if !strings.Contains(out, "Approval needed** · `shell`") {
				t.Fatalf("no approval prompt:\n%s", out)
			}
			reqs := srv.Requests()
			if first := string(reqs[len(reqs)-3].Body); !strings.Contains(first, "hello-report: when asked for the hello report") {
				t.Errorf("the skill is not offered in the turn's prompt:\n%s", first)
			}
			if read := string(reqs[len(reqs)-2].Body); !strings.Contains(read, ".skills/hello-report/scripts/report.sh") {
				t.Errorf("skill_read does not say where the script is:\n%s", read)
			}
			if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, tt.wantResult) {
				t.Errorf("the model was not given %q:\n%s", tt.wantResult, last)
			}
			if ran(sb.dir) != tt.ran {
				t.Fatalf("the script ran = %v after answering %q", !tt.ran, tt.answer)
			}

			exported := filepath.Join(sb.dir, "exported")
			out, errOut, code = sb.run(t, "", "skills", "export", "--scope", ana, exported)
			if code != 0 || !strings.Contains(out, "1 skill(s) written") {
				t.Fatalf("export: exit %d\n%s\n%s", code, out, errOut)
			}
			md, err := os.ReadFile(filepath.Join(exported, "hello-report", "SKILL.md"))
			if err != nil || !strings.HasPrefix(string(md), "---\nname: hello-report\ndescription: when asked") || !strings.Contains(string(md), "origin: "+skill) {
				t.Fatalf("exported SKILL.md: %v\n%s", err, md)
			}
			if _, err := os.Stat(filepath.Join(exported, "hello-report", "scripts", "report.sh")); err != nil {
				t.Fatalf("the script is not exported: %v", err)
			}
			srv.Enqueue(llmtest.Text("SAFE"))
			out, errOut, code = sb.run(t, "", "skills", "import", "--scope", ana, exported)
			if code != 0 || !strings.Contains(out, ana+`: updated "hello-report" (`+skill+`)`) {
				t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}

// ran: the skill's script wrote its file somewhere under dir.
func ran(dir string) bool {
	found := false
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Name() == "ran.txt" {
			found = true
		}
		return nil
	})
	return found
}

// TestSkillsAddRefuses: parley skills add refuses, with a message that
// says why, a URL to a private address, a path that is no skill folder,
// and a folder whose SKILL.md is malformed; nothing is installed.
func TestSkillsAddRefuses(t *testing.T) {
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "---\nname: x\ndescription: d\n---\nbody\n")
	}))
	defer private.Close()
	srv := llmtest.NewServer()
	defer srv.Close()
	sb := newSandbox(t).withLLM(srv)
	bad := filepath.Join(sb.dir, "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "SKILL.md"), []byte("name: x\n"), 0o644)
	for _, tt := range []struct {
		name, src, want string
	}{
		{"a private address", private.URL + "/SKILL.md", "fetch the skill:"},
		{"not a folder", filepath.Join(sb.dir, "nowhere"), "not a skill folder"},
		{"malformed", bad, "no front matter"},
	} {
		out, errOut, code := sb.run(t, "", "skills", "add", tt.src)
		if code == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want %q\n%s", tt.name, code, errOut, tt.want, out)
		}
	}
	if out, _, _ := sb.run(t, "", "skills", "ls"); !strings.Contains(out, "0 skill(s)") {
		t.Errorf("something was installed:\n%s", out)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("a refused skill reached the judge")
	}
}
