package agent

import (
	"encoding/json"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/internal/lazyre"
)

// Egress after untrusted text (docs/security.md, "What leaves, and who
// says so"): once a turn has read text from outside (Caller.Tainted), a
// call that sends data somewhere runs only if where it sends it came from
// the author's own messages; otherwise the author confirms that exact call
// privately first. A poisoned page or document can write the address and
// the data into the model's next call; it cannot write the author's
// earlier messages.

// Egress is implemented by tools that know where a call of theirs sends
// data (web_fetch: its URL). A tool that sends nothing out returns nil.
// Tools that do not implement it are judged by the URLs and addresses in
// their arguments (ArgTargets).
type Egress interface {
	EgressTargets(args json.RawMessage) []string
}

// Local marks t, as Func returns it, as a tool that sends nothing outside
// Parley and the conversation whatever its arguments say: memory (which
// has its own confirmation), the knowledge base lookup, plans, helpers
// (whose own calls are judged in their turns).
func Local(t Tool, err error) (Tool, error) {
	if err != nil {
		return nil, err
	}
	return localTool{t}, nil
}

type localTool struct{ Tool }

func (localTool) EgressTargets(json.RawMessage) []string { return nil }

// UntrustedOutput keeps what t says of its results (MarkUntrusted).
func (l localTool) UntrustedOutput() bool { return untrusted(l.Tool) }

// addressKeys are argument names whose value is where a call goes.
var addressKeys = []string{"url", "uri", "href", "link", "host", "hostname", "address", "endpoint", "server", "domain", "webhook"}

// schemeURLPattern finds URLs in free text: a scheme, then anything up to
// whitespace, quotes or angle brackets.
var schemeURLPattern = lazyre.MustCompile(`(?i)\b[a-z][a-z0-9+.-]{1,15}://[^\s"'<>` + "`" + `]+`)

// bareHostPattern finds host names written without a scheme
// ("wiki.example.com/page"), as people write them.
var bareHostPattern = lazyre.MustCompile(`(?i)\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}(?::\d{1,5})?(?:/[^\s"'<>` + "`" + `]*)?`)

// ArgTargets is every URL in args' string values, and the value of every
// argument whose name says it is an address (url, host, endpoint, …).
func ArgTargets(args json.RawMessage) []string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return nil
	}
	var out []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case string:
			if slices.Contains(addressKeys, strings.ToLower(key)) && strings.TrimSpace(v) != "" {
				out = append(out, strings.TrimSpace(v))
				return
			}
			out = append(out, schemeURLPattern().FindAllString(v, -1)...)
		case []any:
			for _, e := range v {
				walk(key, e)
			}
		case map[string]any:
			for k, e := range v {
				walk(k, e)
			}
		}
	}
	walk("", v)
	slices.Sort(out)
	return slices.Compact(out)
}

// egressTargets is where a call of t would send data.
func egressTargets(t Tool, args json.RawMessage) []string {
	if e, ok := t.(Egress); ok {
		return e.EgressTargets(args)
	}
	return ArgTargets(args)
}

// authorMentions is what the author of a turn wrote in the conversation:
// the URLs (normalized) and host names in their own messages. Messages by
// anyone else, and every tool result, are left out.
type authorMentions struct {
	urls  map[string]bool
	hosts map[string]bool
}

// mentions is what the author of x's turn wrote. A helper's turn has
// none: its instructions are the model's words, which a page it read
// may have written.
func (x *run) mentions() authorMentions {
	if x.t.Sub != nil {
		return mentionsOf(nil, "")
	}
	return mentionsOf(x.history, x.t.Caller.UserName)
}

func mentionsOf(history []llm.Message, author string) authorMentions {
	m := authorMentions{urls: map[string]bool{}, hosts: map[string]bool{}}
	for _, msg := range history {
		if msg.Role != llm.RoleUser || msg.Author != "" && author != "" && msg.Author != author {
			continue
		}
		for _, u := range schemeURLPattern().FindAllString(msg.Text, -1) {
			m.add(u)
		}
		for _, h := range bareHostPattern().FindAllString(msg.Text, -1) {
			m.add("https://" + h)
		}
	}
	return m
}

func (m authorMentions) add(raw string) {
	raw = strings.TrimRight(raw, ".,;:!?)]}")
	n, host, ok := normalizeURL(raw)
	if !ok {
		return
	}
	m.urls[n] = true
	m.hosts[host] = true
}

// has reports whether target came from the author: a URL they wrote (the
// same address, query included: a query is where data rides), or, for a
// bare host or address, a host of theirs.
func (m authorMentions) has(target string) bool {
	if strings.Contains(target, "://") {
		n, _, ok := normalizeURL(target)
		return ok && m.urls[n]
	}
	host := strings.ToLower(strings.TrimSuffix(target, "."))
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return host != "" && m.hosts[strings.Trim(host, "[]")]
}

// foreign is the targets the author did not write.
func (m authorMentions) foreign(targets []string) []string {
	var out []string
	for _, t := range targets {
		if !m.has(t) {
			out = append(out, t)
		}
	}
	return out
}

// normalizeURL is raw with what does not change where it goes made
// uniform: the scheme and host in lower case, http as https, a default
// port and the fragment dropped, an empty path as "/". host is its host
// name.
func normalizeURL(raw string) (norm, host string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", "", false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	port := u.Port()
	if port == "80" && u.Scheme == "http" || port == "443" && u.Scheme == "https" {
		port = ""
	}
	u.Host = host
	if port != "" {
		u.Host = net.JoinHostPort(host, port)
	}
	if u.Scheme == "http" {
		// The same place over either: the data reaches the same party.
		u.Scheme = "https"
	}
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String(), host, true
}

// egressRisk is what an approver is told about such a call.
func egressRisk(targets []string) string {
	return "this conversation read text from outside, and it sends data to " + strings.Join(targets, ", ") +
		", which its author never wrote"
}
