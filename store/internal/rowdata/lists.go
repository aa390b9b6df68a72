package rowdata

import (
	"encoding/json"
)

// Several columns hold a list of strings as a JSON array (an approval's
// approvers and risks, a reminder's targets, a run's skills read, a
// reply's message refs). Both engines query into them (SQLite json_each,
// PostgreSQL jsonb_array_elements_text), so an empty list is stored as
// "[]", never "null".

// NonNil makes a nil list encode as [] (JSON) or '{}' (a PostgreSQL
// array) rather than null.
func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// EncodeList returns the JSON text of a list column. The text, not a
// []byte: SQLite's STRICT TEXT columns reject a []byte, which binds as a
// BLOB.
func EncodeList(s []string) (string, error) {
	b, err := json.Marshal(NonNil(s))
	return string(b), err
}

// DecodeList reads a list column back; an empty list reads as nil, as a
// record with none was created.
func DecodeList(s string) ([]string, error) {
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
