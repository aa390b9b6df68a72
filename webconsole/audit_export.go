package webconsole

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/webconsole/signin"
)

// auditExportMax bounds one export: past it, narrow the filter.
const auditExportMax = 100_000

// auditExport sends the audit entries the filter (as on the page) selects,
// newest first, as CSV (?format=csv) or JSON lines (?format=json), read a
// thousand at a time as they are written.
func (s *Server) auditExport(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	q := r.URL.Query()
	format := q.Get("format")
	if format != "csv" && format != "json" {
		s.fail(w, r, http.StatusBadRequest, "Export as csv or json.")
		return
	}
	f := bot.AuditFilter{Actor: q.Get("actor"), Action: q.Get("action")}
	// The export is itself on record, before any row goes out.
	s.record(r.Context(), who, "audit.export", format, "actor="+f.Actor+" action="+f.Action)
	name, kind := "parley-audit.csv", "text/csv; charset=utf-8"
	if format == "json" {
		name, kind = "parley-audit.jsonl", "application/x-ndjson"
	}
	w.Header().Set("Content-Type", kind)
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	c := csv.NewWriter(w)
	enc := json.NewEncoder(w)
	if format == "csv" {
		_ = c.Write([]string{"id", "at", "actor", "action", "target", "via", "detail"})
	}
	for n := 0; n < auditExportMax; {
		rows, err := s.cfg.Audit.AuditEntries(r.Context(), f, 1000)
		if err != nil {
			// The header is out: the file ends here, and the log says why.
			s.cfg.Logger.Error("console: audit export", "err", err)
			break
		}
		for _, e := range rows {
			if format == "csv" {
				_ = c.Write([]string{strconv.FormatInt(e.ID, 10), e.At.UTC().Format(time.RFC3339),
					csvSafe(e.Actor), csvSafe(e.Action), csvSafe(e.Target), csvSafe(e.Via), csvSafe(e.Detail)})
			} else if err := enc.Encode(auditLine(e)); err != nil {
				return // the browser went
			}
		}
		n += len(rows)
		if len(rows) < 1000 {
			break
		}
		f.Before = rows[len(rows)-1].ID
	}
	c.Flush()
}

// auditLineJSON is one entry of the JSON export.
type auditLineJSON struct {
	ID     int64  `json:"id"`
	At     string `json:"at"`
	Actor  string `json:"actor"`
	Action string `json:"action"`
	Target string `json:"target,omitempty"`
	Via    string `json:"via"`
	Detail string `json:"detail,omitempty"`
}

func auditLine(e bot.AuditEntry) auditLineJSON {
	return auditLineJSON{ID: e.ID, At: e.At.UTC().Format(time.RFC3339), Actor: e.Actor, Action: e.Action, Target: e.Target, Via: e.Via, Detail: e.Detail}
}

// csvSafe keeps a cell from being read as a formula by a spreadsheet
// (=, +, -, @ first): the detail is free text, tool arguments included.
func csvSafe(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
		return "'" + s
	}
	return s
}
