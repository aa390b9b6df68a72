package discordtest

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Command is an application command as last bulk-overwritten.
type Command struct {
	Name, Description string
	Options           json.RawMessage
	GuildID           string
}

type registeredCommand struct {
	Command
	id   string
	typ  int
	echo map[string]any // as sent, plus the fields Discord adds
}

// commandName is Discord's CHAT_INPUT name pattern (lowercase enforced apart).
var commandName = regexp.MustCompile(`^[-_'\p{L}\p{N}]{1,32}$`)

type rawOption struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Options     []rawOption `json:"options"`
}

type rawCommand struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Type        int         `json:"type"`
	Options     []rawOption `json:"options"`
}

func checkName(errs formErrors, path, name string, chatInput bool) {
	switch {
	case utf8.RuneCountInString(name) < 1 || utf8.RuneCountInString(name) > 32:
		errs.add(path, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length.")
	case chatInput && (!commandName.MatchString(name) || strings.ToLower(name) != name):
		errs.add(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
	}
}

func checkDescription(errs formErrors, path, desc string) {
	if n := utf8.RuneCountInString(desc); n < 1 || n > 100 {
		errs.add(path, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
	}
}

func checkOptions(errs formErrors, path string, opts []rawOption) {
	if len(opts) > 25 {
		tooLong(errs, path, 25)
	}
	for i, o := range opts {
		p := path + "." + itoa(i)
		checkName(errs, p+".name", o.Name, true)
		checkDescription(errs, p+".description", o.Description)
		checkOptions(errs, p+".options", o.Options)
	}
}

// commandsRoute resolves the application (and guild) of a commands route.
func (s *Server) commandsRoute(r *request) (guildID string, e *apiError) {
	if r.params[0] != s.w.botID {
		return "", errBody(http.StatusForbidden, codeMissingAccess, "Missing Access")
	}
	if len(r.params) > 1 {
		guildID = r.params[1]
		if _, ok := s.w.guilds[guildID]; !ok {
			return "", errBody(http.StatusNotFound, codeUnknownGuild, "Unknown Guild")
		}
	}
	return guildID, nil
}

func (s *Server) getCommands(r *request) reply {
	guildID, e := s.commandsRoute(r)
	if e != nil {
		return fail(e)
	}
	out := []map[string]any{}
	for _, c := range s.w.commands[guildID] {
		out = append(out, c.echo)
	}
	return okJSON(out)
}

// putCommands is the bulk overwrite: validate all, then replace the set.
// Ids are stable per name, as Discord keeps them across overwrites.
func (s *Server) putCommands(r *request) reply {
	guildID, e := s.commandsRoute(r)
	if e != nil {
		return fail(e)
	}
	var raws []json.RawMessage
	if e := r.decode(&raws); e != nil {
		return fail(e)
	}
	errs := formErrors{}
	if len(raws) > 100 {
		tooLong(errs, "_root", 100)
	}
	cmds := make([]rawCommand, len(raws))
	seen := map[string]bool{}
	for i, raw := range raws {
		p := itoa(i)
		if err := json.Unmarshal(raw, &cmds[i]); err != nil {
			errs.add(p, "BASE_TYPE_BAD", "Value is of the wrong type.")
			continue
		}
		c := &cmds[i]
		if c.Type == 0 {
			c.Type = 1
		}
		chatInput := c.Type == 1
		checkName(errs, p+".name", c.Name, chatInput)
		if chatInput {
			checkDescription(errs, p+".description", c.Description)
			checkOptions(errs, p+".options", c.Options)
		} else if c.Description != "" {
			errs.add(p+".description", "APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION", "Context menu commands cannot have description")
		}
		key := itoa(c.Type) + "/" + c.Name
		if seen[key] {
			errs.add("_root", "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique")
		}
		seen[key] = true
	}
	if e := errs.apiError(); e != nil {
		return fail(e)
	}
	out := make([]registeredCommand, 0, len(raws))
	for i, raw := range raws {
		c := cmds[i]
		idKey := guildID + "/" + itoa(c.Type) + "/" + c.Name
		id, known := s.w.commandIDs[idKey]
		if !known {
			id = s.w.snowflake(s.now())
			s.w.commandIDs[idKey] = id
		}
		echo := map[string]any{}
		_ = json.Unmarshal(raw, &echo) // raw decoded as rawCommand above, so it is an object
		echo["id"], echo["application_id"], echo["version"], echo["type"] = id, s.w.botID, id, c.Type
		echo["default_member_permissions"], echo["nsfw"] = nil, false
		if guildID != "" {
			echo["guild_id"] = guildID
		}
		var opts json.RawMessage
		if o, ok := echo["options"]; ok && o != nil {
			opts, _ = json.Marshal(o)
		}
		out = append(out, registeredCommand{
			Command: Command{Name: c.Name, Description: c.Description, Options: opts, GuildID: guildID},
			id:      id, typ: c.Type, echo: echo,
		})
	}
	s.w.commands[guildID] = out
	list := make([]map[string]any, 0, len(out))
	for _, c := range out {
		list = append(list, c.echo)
	}
	return okJSON(list)
}
