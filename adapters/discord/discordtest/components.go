package discordtest

import (
	"encoding/json"
	"unicode/utf8"
)

// Button is one button of a message's action rows.
type Button struct {
	Label    string
	Style    int
	CustomID string
	URL      string // link buttons (style 5) only
	Disabled bool
}

// Component types and the message flag that switches layouts.
const (
	componentActionRow = 1
	componentButton    = 2
	buttonLink         = 5
	flagComponentsV2   = 1 << 15
	maxRows            = 5
	maxPerRow          = 5
	maxCustomID        = 100
	maxLabel           = 80
)

type rawComponent struct {
	Type       int               `json:"type"`
	Style      int               `json:"style"`
	Label      string            `json:"label"`
	CustomID   string            `json:"custom_id"`
	URL        string            `json:"url"`
	Disabled   bool              `json:"disabled"`
	Emoji      json.RawMessage   `json:"emoji"`
	Components []json.RawMessage `json:"components"`
}

// parseComponents validates a message's components as Discord does for
// action rows (≤ 5 rows of ≤ 5 buttons, or one select menu; custom_id ≤ 100
// and unique; label ≤ 80) and returns the buttons row by row. Components V2
// layouts (flag 1<<15) are accepted without button extraction.
func parseComponents(raw json.RawMessage, flags int) ([][]Button, formErrors) {
	errs := formErrors{}
	if len(raw) == 0 || string(raw) == "null" || flags&flagComponentsV2 != 0 {
		return nil, errs
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(raw, &rows); err != nil {
		errs.add("components", "BASE_TYPE_BAD", "Value is of the wrong type.")
		return nil, errs
	}
	if len(rows) > maxRows {
		tooLong(errs, "components", maxRows)
		return nil, errs
	}
	seen := map[string]bool{}
	var out [][]Button
	for i, rowRaw := range rows {
		path := "components." + itoa(i)
		var row rawComponent
		if err := json.Unmarshal(rowRaw, &row); err != nil {
			errs.add(path, "BASE_TYPE_BAD", "Value is of the wrong type.")
			continue
		}
		if row.Type != componentActionRow {
			errs.add(path+".type", "UNION_TYPE_CHOICES", "Value of field \"type\" must be one of (1,).")
			continue
		}
		switch n := len(row.Components); {
		case n == 0:
			errs.add(path+".components", "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.")
			continue
		case n > maxPerRow:
			tooLong(errs, path+".components", maxPerRow)
			continue
		}
		var buttons []Button
		for j, cRaw := range row.Components {
			cpath := path + ".components." + itoa(j)
			var c rawComponent
			if err := json.Unmarshal(cRaw, &c); err != nil {
				errs.add(cpath, "BASE_TYPE_BAD", "Value is of the wrong type.")
				continue
			}
			errs.merge(checkComponent(c, cpath, len(row.Components), seen))
			if c.Type == componentButton {
				buttons = append(buttons, Button{Label: c.Label, Style: c.Style, CustomID: c.CustomID, URL: c.URL, Disabled: c.Disabled})
			}
		}
		out = append(out, buttons)
	}
	return out, errs
}

func checkComponent(c rawComponent, path string, rowLen int, seen map[string]bool) formErrors {
	errs := formErrors{}
	checkID := func(required bool) {
		switch n := utf8.RuneCountInString(c.CustomID); {
		case n == 0 && required:
			errs.add(path+".custom_id", "BASE_TYPE_REQUIRED", "This field is required")
		case n > maxCustomID:
			tooLong(errs, path+".custom_id", maxCustomID)
		case n > 0 && seen[c.CustomID]:
			errs.add(path+".custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
		}
		seen[c.CustomID] = true
	}
	switch c.Type {
	case componentButton:
		if c.Style < 1 || c.Style > buttonLink {
			errs.add(path+".style", "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5}.")
		}
		if utf8.RuneCountInString(c.Label) > maxLabel {
			tooLong(errs, path+".label", maxLabel)
		}
		if c.Label == "" && (len(c.Emoji) == 0 || string(c.Emoji) == "null") {
			errs.add(path, "BUTTON_COMPONENT_INVALID", "A label or emoji must be provided")
		}
		if c.Style == buttonLink {
			if c.URL == "" {
				errs.add(path+".url", "BUTTON_COMPONENT_URL_REQUIRED", "A url must be provided for link buttons")
			}
			if c.CustomID != "" {
				errs.add(path+".custom_id", "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED", "A custom id is not allowed for link buttons")
			}
			return errs
		}
		checkID(true)
	case 3, 5, 6, 7, 8: // select menus take a whole row
		if rowLen > 1 {
			errs.add(path, "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "The specified component exceeds the maximum width")
		}
		checkID(true)
	default:
		errs.add(path+".type", "UNION_TYPE_CHOICES", "Value of field \"type\" must be one of (2, 3, 5, 6, 7, 8).")
	}
	return errs
}
