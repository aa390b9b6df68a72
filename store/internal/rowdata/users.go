package rowdata

import "strings"

// likeEscaper escapes LIKE's wildcards and its escape character ('\').
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// LikeEscape is s as the literal part of a LIKE pattern with ESCAPE '\':
// a person searching for "a_b" means those three characters.
func LikeEscape(s string) string { return likeEscaper.Replace(s) }
