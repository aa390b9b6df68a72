package shell

import (
	"path"
	"strings"

	"github.com/parleybot/parley/internal/lazyre"
)

// The blocklist does not parse shell; it normalizes the command line into
// something close enough to what the shell would execute that simple
// obfuscation (quotes, backslashes, odd spacing, $HOME) does not change the
// verdict.
//
// Quoted text is treated exactly like unquoted text: quotes are removed,
// not honoured. We cannot tell `echo 'rm -rf /'` from `sh -c 'rm -rf /'`
// or `echo 'rm -rf /' | sh` without a real shell parser and an
// understanding of every program that runs its arguments, and a false
// refusal costs a rephrase while a false pass costs the host. So
// `echo "rm -rf / is bad"` is refused.

var (
	unquote = strings.NewReplacer(
		"\\\r\n", "", // line continuations join words
		"\\\n", "",
		"$'", "", // ANSI-C and locale quoting
		"$\"", "",
		"'", "",
		"\"", "",
		"\\", "",
	)
	homeVar    = lazyre.MustCompile(`\$(\{HOME\}|HOME\b)`)
	blankRun   = lazyre.MustCompile(`[ \t\r\v\f]+`)
	slashRun   = lazyre.MustCompile(`/{2,}`)
	separators = "\n;&|(){}`"
)

// normalize strips quoting, spells $HOME as ~ and collapses blanks. Line
// breaks are kept: they separate commands.
func normalize(cmd string) string {
	s := unquote.Replace(cmd)
	s = homeVar().ReplaceAllString(s, "~")
	s = blankRun().ReplaceAllString(s, " ")
	return strings.TrimSpace(s)
}

// pathText prepares normalized text for path matching: case folded (some
// filesystems are case-insensitive, and erring towards a match is the
// point) and with `//` and `/./` spelled the plain way.
func pathText(norm string) string {
	s := strings.ToLower(norm)
	s = slashRun().ReplaceAllString(s, "/")
	for strings.Contains(s, "/./") {
		s = strings.ReplaceAll(s, "/./", "/")
	}
	return s
}

// segments splits normalized text into simple commands: at ; & | && ||,
// subshells, command substitution, braces, backquotes and line breaks.
// Splitting at a brace also splits brace expansion (/{bin,etc}) and
// redirections such as 2>&1; both only ever add words to check.
func segments(norm string) [][]string {
	var out [][]string
	for _, seg := range strings.FieldsFunc(norm, func(r rune) bool {
		return strings.ContainsRune(separators, r)
	}) {
		if words := strings.Fields(seg); len(words) > 0 {
			out = append(out, words)
		}
	}
	return out
}

// wrappers run their operands as a command (sudo reboot, env X=1 reboot,
// timeout 5 reboot). The value lists the options that take a separate
// argument; positional says how many leading operands are not the command
// (timeout's duration, chroot's directory).
var wrappers = map[string]struct {
	argOptions string
	positional int
}{
	"sudo": {argOptions: " -u -g -h -p -C -D -r -t -U -T "},
	"doas": {argOptions: " -u -C "},
	"su":   {argOptions: " -s -g -G -w "},
	"env":  {argOptions: " -u -C "},
	"exec": {argOptions: " -a "},
	"nice": {argOptions: " -n "}, "ionice": {argOptions: " -c -n -p "},
	"timeout": {argOptions: " -s -k ", positional: 1},
	"stdbuf":  {argOptions: " -i -o -e "},
	"xargs":   {argOptions: " -I -d -E -L -n -P -s -a "},
	"watch":   {argOptions: " -n -d "},
	"chroot":  {positional: 1},
	"nohup":   {}, "command": {}, "builtin": {}, "time": {}, "setsid": {}, "eval": {},
	"busybox": {}, "unbuffer": {},
	"then": {}, "do": {}, "else": {}, "elif": {}, "if": {}, "while": {}, "until": {}, "!": {},
	"sh": {}, "bash": {}, "dash": {}, "zsh": {}, "ksh": {}, "fish": {},
}

// commands returns the commands the shell would run in one simple
// command, each as its name followed by its arguments: the first word
// after assignments and wrappers, and the word after -c (sh -c, su user -c)
// and find's -exec family. Every word belongs to at most one command, so
// checking them all stays linear.
func commands(words []string) [][]string {
	var out [][]string
	for i := 0; i < len(words); {
		i = skipWrappers(words, i)
		if i >= len(words) {
			break
		}
		j := i + 1
		for j < len(words) && !runsNext(words[j]) {
			j++
		}
		out = append(out, words[i:j])
		i = j + 1
	}
	return out
}

func runsNext(w string) bool {
	switch w {
	case "-c", "-exec", "-execdir", "-ok", "-okdir":
		return true
	}
	return false
}

func skipWrappers(words []string, i int) int {
	for i < len(words) {
		w := words[i]
		if isAssignment(w) {
			i++
			continue
		}
		spec, ok := wrappers[commandName(w)]
		if !ok {
			return i
		}
		i++
		positional := spec.positional
	operands:
		for i < len(words) {
			w := words[i]
			switch {
			case isAssignment(w):
				i++
			case strings.HasPrefix(w, "-") && len(w) > 1:
				i++
				if strings.Contains(spec.argOptions, " "+w+" ") {
					i++
				}
			case positional > 0:
				positional--
				i++
			default:
				break operands
			}
		}
	}
	return i
}

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	return eq > 0 && envName().MatchString(w[:eq])
}

// commandName is the program a word names: /usr/sbin/reboot is reboot.
func commandName(w string) string {
	if strings.Contains(w, "/") && w != "/" {
		return path.Base(w)
	}
	return w
}
