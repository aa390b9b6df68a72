package webconsole_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/parleybot/parley/bot"
)

func TestAuditExport(t *testing.T) {
	c := newConsole(t)
	for i := range 2500 {
		e := bot.AuditEntry{At: c.clock.now(), Actor: "slack:U1", Action: "tool.call", Target: "shell", Via: "chat",
			Detail: fmt.Sprintf(`{"command":"echo %d"}`, i)}
		if i == 7 {
			e.Detail = `=HYPERLINK("http://evil.example")`
		}
		if err := c.db.Audit(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	root := c.signIn(t, admin)

	code, body := c.get(t, root, "/audit/export?format=csv&action=tool.call")
	if code != http.StatusOK {
		t.Fatalf("csv: %d", code)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2501 || rows[0][0] != "id" || rows[1][6] != `{"command":"echo 2499"}` {
		t.Fatalf("csv: %d rows, first %v / %v", len(rows), rows[0], rows[1])
	}
	for _, r := range rows {
		if strings.HasPrefix(r[6], "=") {
			t.Fatalf("a formula went out as is: %q", r[6])
		}
	}

	// Everything, as JSON lines: the entries, the sign-in, the first export
	// and this one (each export is on record before it runs).
	code, body = c.get(t, root, "/audit/export?format=json")
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if code != http.StatusOK || len(lines) != 2503 {
		t.Fatalf("json: %d, %d lines", code, len(lines))
	}
	var first struct{ Action, Target string }
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Action != "audit.export" || first.Target != "json" {
		t.Fatalf("json's first line %q: %v", lines[0], err)
	}

	if code, _ := c.get(t, root, "/audit/export?format=xml"); code != http.StatusBadRequest {
		t.Errorf("xml: %d", code)
	}
	if code, _ := c.get(t, c.signIn(t, "slack:UANA"), "/audit/export?format=csv"); code != http.StatusForbidden {
		t.Errorf("a person's export: %d", code)
	}
}
