package rowdata

import (
	"encoding/json"
	"fmt"
)

// SkillFiles is an installed skill's files as the skills.files column
// keeps them on both engines: a JSON object of path to content ("{}" for
// none, so the column is never NULL).
func SkillFiles(files map[string]string) (string, error) {
	if len(files) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(files)
	if err != nil {
		return "", fmt.Errorf("skill files: %w", err)
	}
	return string(b), nil
}

// ParseSkillFiles reads the skills.files column back; nil for none.
func ParseSkillFiles(col string) (map[string]string, error) {
	var files map[string]string
	if err := json.Unmarshal([]byte(col), &files); err != nil {
		return nil, fmt.Errorf("skill files: %w", err)
	}
	if len(files) == 0 {
		return nil, nil
	}
	return files, nil
}
