package discordtest

import (
	"slices"
	"strings"
)

// AllowedMentions is the allowed_mentions object of a message create/edit:
// who the message may notify.
type AllowedMentions struct {
	Parse       []string `json:"parse"`
	Users       []string `json:"users"`
	Roles       []string `json:"roles"`
	RepliedUser bool     `json:"replied_user"`
}

// validate reports the Invalid Form Body errors Discord gives for this object.
func (a *AllowedMentions) validate() formErrors {
	if a == nil {
		return nil
	}
	errs := formErrors{}
	for i, p := range a.Parse {
		if p != "everyone" && p != "users" && p != "roles" {
			errs.add("allowed_mentions.parse."+itoa(i), "ENUM_TYPE_COERCE", "Value \""+p+"\" is not a valid enum value.")
		}
	}
	if slices.Contains(a.Parse, "users") && len(a.Users) > 0 {
		errs.add("allowed_mentions", "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE", "parse:[\"users\"] and users: [ids] are mutually exclusive.")
	}
	if slices.Contains(a.Parse, "roles") && len(a.Roles) > 0 {
		errs.add("allowed_mentions", "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE", "parse:[\"roles\"] and roles: [ids] are mutually exclusive.")
	}
	if len(a.Users) > 100 {
		errs.add("allowed_mentions.users", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
	}
	if len(a.Roles) > 100 {
		errs.add("allowed_mentions.roles", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
	}
	return errs
}

// clone is a deep copy of a, which a Message hands out without sharing.
func (a *AllowedMentions) clone() *AllowedMentions {
	if a == nil {
		return nil
	}
	return &AllowedMentions{Parse: slices.Clone(a.Parse), Users: slices.Clone(a.Users),
		Roles: slices.Clone(a.Roles), RepliedUser: a.RepliedUser}
}

// mention is one mention token found in content.
type mention struct {
	kind string // "everyone", "here", "user", "role"
	id   string
}

// scanMentions finds @everyone, @here, <@id>, <@!id> and <@&id> in content,
// in order. Like Discord's server, it does not look at Markdown: a mention
// inside a code span still counts.
func scanMentions(content string) []mention {
	var out []mention
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case '@':
			switch rest := content[i+1:]; {
			case strings.HasPrefix(rest, "everyone"):
				out = append(out, mention{kind: "everyone"})
				i += len("everyone")
			case strings.HasPrefix(rest, "here"):
				out = append(out, mention{kind: "here"})
				i += len("here")
			}
		case '<':
			if !strings.HasPrefix(content[i:], "<@") {
				continue
			}
			j := i + 2
			kind := "user"
			if j < len(content) && (content[j] == '!' || content[j] == '&') {
				if content[j] == '&' {
					kind = "role"
				}
				j++
			}
			k := j
			for k < len(content) && content[k] >= '0' && content[k] <= '9' {
				k++
			}
			if k > j && k < len(content) && content[k] == '>' {
				out = append(out, mention{kind: kind, id: content[j:k]})
				i = k
			}
		}
	}
	return out
}

// pingResult is who a message notifies.
type pingResult struct {
	pings    []string // "everyone", "here", "user:<id>", "role:<id>"
	users    []string // the message's mentions array
	roles    []string
	everyone bool
}

// computePings applies Discord's allowed_mentions rules: without the object
// everything in content pings and a reply pings the replied-to author; with
// it, only what parse lists plus the listed ids, and the replied-to author
// only with replied_user. known filters user ids to existing users; the
// author never pings themself.
func computePings(content string, am *AllowedMentions, author, repliedAuthor string, known func(string) bool) pingResult {
	allow := func(kind, id string) bool {
		if am == nil {
			return true
		}
		switch kind {
		case "everyone", "here":
			return slices.Contains(am.Parse, "everyone")
		case "user":
			return slices.Contains(am.Parse, "users") || slices.Contains(am.Users, id)
		default:
			return slices.Contains(am.Parse, "roles") || slices.Contains(am.Roles, id)
		}
	}
	var r pingResult
	add := func(p string) bool {
		if slices.Contains(r.pings, p) {
			return false
		}
		r.pings = append(r.pings, p)
		return true
	}
	for _, m := range scanMentions(content) {
		if !allow(m.kind, m.id) {
			continue
		}
		switch m.kind {
		case "everyone", "here":
			add(m.kind)
			r.everyone = true
		case "user":
			if m.id != author && known(m.id) && add("user:"+m.id) {
				r.users = append(r.users, m.id)
			}
		case "role":
			if add("role:" + m.id) {
				r.roles = append(r.roles, m.id)
			}
		}
	}
	if repliedAuthor != "" && repliedAuthor != author && (am == nil || am.RepliedUser) && add("user:"+repliedAuthor) {
		r.users = append(r.users, repliedAuthor)
	}
	return r
}

// mergePings adds newly notified targets to what a message already notified.
func mergePings(old, add []string) []string {
	for _, p := range add {
		if !slices.Contains(old, p) {
			old = append(old, p)
		}
	}
	return old
}
