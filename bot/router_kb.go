package bot

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/chat"
)

// /kb: the knowledge base from the chat. What is added here belongs to
// this place's scope (Where.Home: the workspace, server or group; a
// person's own in a DM); what is listed is what a search here covers
// (Where.Visible). Adding runs in the background, recorded in the inbox,
// so a crash half way through a download is finished at the next start.

// Knowledge is the knowledge base as /kb uses it (*kb.Base).
type Knowledge interface {
	Ready() error
	Status() string
	List(ctx context.Context, scopes []string) ([]kb.Document, error)
	Forget(ctx context.Context, id int64) error
	Add(ctx context.Context, doc kb.Document, contentType string, data []byte) (kb.Ingested, error)
	AddURL(ctx context.Context, doc kb.Document, url string) (kb.Ingested, error)
	MaxFileBytes() int64
}

// kbAddJob is a /kb add to finish: what was asked, where, by whom.
type kbAddJob struct {
	Thread chat.Thread `json:"thread"`
	User   chat.User   `json:"user"`
	Direct bool        `json:"direct"`
	URLs   []string    `json:"urls,omitempty"`
	Files  []chat.File `json:"files,omitempty"`
	// respond answers in place where the command came with a way to
	// (Command.Respond: Discord's deferred answer, Slack's response URL);
	// a job finished after a restart answers by direct message.
	respond func(ctx context.Context, out chat.Out) error
}

func (j kbAddJob) where() Where { return Where{Thread: j.Thread, User: j.User, Direct: j.Direct} }

// isKBAdd: a /kb add, which HandleCommand records with what it adds.
func isKBAdd(c chat.Command) bool {
	return c.Name == "kb" && len(c.Args) > 0 && strings.EqualFold(c.Args[0], "add")
}

func newKBAddJob(c chat.Command) kbAddJob {
	return kbAddJob{Thread: c.Thread, User: c.User, Direct: c.Direct, URLs: c.Args[1:], Files: c.Files, respond: c.Respond}
}

func (r *Router) cmdKB(ctx context.Context, c chat.Command) error {
	k := r.cfg.Knowledge
	if k == nil {
		return r.answerPrivately(ctx, c, chat.Out{Text: "The knowledge base is not set up here."})
	}
	if err := k.Ready(); err != nil {
		return r.answerPrivately(ctx, c, chat.Out{Text: err.Error()})
	}
	sub := ""
	if len(c.Args) > 0 {
		sub = strings.ToLower(c.Args[0])
	}
	switch sub {
	case "", "list", "ls":
		return r.kbList(ctx, c)
	case "forget", "rm":
		return r.kbForget(ctx, c)
	}
	return r.answerPrivately(ctx, c, chat.Out{Text: "Usage: /kb, /kb add <url> (or with a file attached), /kb forget N"})
}

// kbList answers with the documents a search here covers, numbered for
// /kb forget.
func (r *Router) kbList(ctx context.Context, c chat.Command) error {
	w := Where{Thread: c.Thread, User: c.User, Direct: c.Direct}
	docs, err := r.cfg.Knowledge.List(ctx, w.VisibleKeys())
	if err != nil {
		return err
	}
	var b strings.Builder
	if len(docs) == 0 {
		b.WriteString("No documents here yet. Add one with /kb add <url>, or attach a file to a message saying /kb add.\n")
	} else {
		fmt.Fprintf(&b, "Documents I search here (%d):\n", len(docs))
		for i, d := range docs {
			fmt.Fprintf(&b, "%d. %s — %s, added by %s, %s%s\n", i+1, d.Source, kb.Size(d.Bytes), addedBy(d),
				d.AddedAt.Format("2006-01-02"), scopeNote(d.Scope, w))
		}
		b.WriteString("/kb forget N removes one (the person who added it, or an admin).\n")
	}
	b.WriteString("_" + r.cfg.Knowledge.Status() + "_")
	return r.answerPrivately(ctx, c, chat.Out{Text: b.String()})
}

func addedBy(d kb.Document) string {
	if d.AddedBy == "operator" {
		return "the operator"
	}
	if d.AddedByName != "" {
		return d.AddedByName
	}
	return d.AddedBy
}

// scopeNote says where a listed document is visible, when not just here.
func scopeNote(scope string, w Where) string {
	switch scope {
	case OperatorScope().Key():
		return " (everywhere)"
	case Scope{Kind: ScopePerson, ID: w.User.Key()}.Key():
		return " (only you)"
	}
	return ""
}

func (r *Router) kbForget(ctx context.Context, c chat.Command) error {
	w := Where{Thread: c.Thread, User: c.User, Direct: c.Direct}
	docs, err := r.cfg.Knowledge.List(ctx, w.VisibleKeys())
	if err != nil {
		return err
	}
	n := 0
	if len(c.Args) > 1 {
		n, _ = strconv.Atoi(c.Args[1])
	}
	if n < 1 || n > len(docs) {
		return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("Which one? /kb forget N, with N from 1 to %d (see /kb).", len(docs))})
	}
	d := docs[n-1]
	if d.AddedBy != c.User.Key() && !r.cfg.Access.IsAdmin(c.User) {
		return r.answerPrivately(ctx, c, chat.Out{Text: fmt.Sprintf("Only %s or an admin can remove %s.", addedBy(d), d.Source)})
	}
	if err := r.cfg.Knowledge.Forget(ctx, d.ID); err != nil {
		return err
	}
	r.audit(ctx, AuditEntry{Actor: c.User.Key(), Action: "kb.remove", Target: strconv.FormatInt(d.ID, 10), Detail: d.Scope + ": " + d.Source, Via: "chat"})
	return r.answerPrivately(ctx, c, chat.Out{Text: "Removed " + d.Source + " from the knowledge base."})
}

// kbAdd adds what a /kb add named, and answers privately with what
// happened to each. It runs apart from the event that asked (a download
// may take a while) and closes the inbox record when done; a shutdown half
// way leaves it to finish at the next start.
func (r *Router) kbAdd(ctx context.Context, job kbAddJob, done func()) {
	c := chat.Command{Thread: job.Thread, User: job.User, Direct: job.Direct, Respond: job.respond}
	answer := func(text string) {
		if err := r.answerPrivately(ctx, c, chat.Out{Text: text}); err != nil {
			r.log.Error("kb add: answer", "err", err)
		}
	}
	k := r.cfg.Knowledge
	switch {
	case k == nil:
		answer("The knowledge base is not set up here.")
		done()
		return
	case k.Ready() != nil:
		answer(k.Ready().Error())
		done()
		return
	case len(job.URLs) == 0 && len(job.Files) == 0:
		answer("Add what? /kb add <url>, or attach a file to a message saying /kb add.")
		done()
		return
	}
	doc := kb.Document{Scope: job.where().Home().Key(), AddedBy: job.User.Key(), AddedByName: job.User.Name}
	var lines []string
	for _, u := range job.URLs {
		u = webAddress(u)
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") {
			lines = append(lines, fmt.Sprintf("%s: not a web address (http or https)", u))
			continue
		}
		ing, err := k.AddURL(ctx, doc, u)
		lines = append(lines, describeAdd(u, ing, err))
		r.auditAdd(ctx, job, doc.Scope, u, err)
	}
	if len(job.Files) > 0 {
		fetcher, ok := r.adapters[job.Thread.Platform].(chat.FileFetcher)
		for _, f := range job.Files {
			if !ok {
				lines = append(lines, f.Name+": files cannot be downloaded from this platform")
				continue
			}
			data, err := fetcher.FetchFile(ctx, f, k.MaxFileBytes())
			if err != nil {
				if ctx.Err() != nil {
					return // shutting down: finished at the next start
				}
				lines = append(lines, describeAdd(f.Name, kb.Ingested{}, err))
				continue
			}
			d := doc
			d.Source = f.Name
			ing, err := k.Add(ctx, d, f.MIME, data)
			lines = append(lines, describeAdd(f.Name, ing, err))
			r.auditAdd(ctx, job, doc.Scope, f.Name, err)
		}
	}
	if ctx.Err() != nil {
		return
	}
	answer(strings.Join(lines, "\n"))
	done()
}

// auditAdd records a document /kb add added (nothing when it failed), as
// the console's Knowledge page records its own.
func (r *Router) auditAdd(ctx context.Context, job kbAddJob, scope, source string, err error) {
	if err == nil {
		r.audit(ctx, AuditEntry{Actor: job.User.Key(), Action: "kb.add", Target: scope, Detail: source, Via: "chat"})
	}
}

// webAddress is a /kb add argument as the address it names. Slack sends a
// link as <url>, or <url|label> when it linked text typed without a scheme,
// with &, < and > escaped as HTML entities; Discord's <url> only hides the
// preview. Anything else is taken as typed.
func webAddress(arg string) string {
	if len(arg) < 2 || arg[0] != '<' || arg[len(arg)-1] != '>' {
		return arg
	}
	arg, _, _ = strings.Cut(arg[1:len(arg)-1], "|")
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(arg)
}

// describeAdd says in one line what adding source did.
func describeAdd(source string, ing kb.Ingested, err error) string {
	switch {
	case errors.Is(err, chat.ErrFileTooLarge), errors.Is(err, kb.ErrTooLarge):
		return fmt.Sprintf("%s: not added, too large (%v)", source, err)
	case err != nil:
		return fmt.Sprintf("%s: not added: %v", source, err)
	}
	switch ing.Outcome {
	case kb.Replaced:
		return fmt.Sprintf("%s: updated (%d passages).", source, ing.Doc.Chunks)
	case kb.Unchanged:
		return fmt.Sprintf("%s: already in the knowledge base, unchanged.", source)
	case kb.Duplicate:
		return fmt.Sprintf("%s: the same content is already here as %s.", source, ing.Doc.Source)
	}
	return fmt.Sprintf("%s: added (%d passages). I will search it when it may help.", source, ing.Doc.Chunks)
}
