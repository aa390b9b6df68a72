package shell

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Protected paths used by the table; they need not exist (a missing path
// is taken to be a file, as the database is before first start).
var testProtected = []string{"/var/lib/parley/parley.db", "/etc/parley/config.yaml"}

func testBlocklist(t testing.TB) *blocklist {
	p, err := newProtectedPaths(testProtected, "/var/lib/parley/workspace")
	if err != nil {
		t.Fatal(err)
	}
	return &blocklist{protected: p}
}

// blocklistCases: rule "" means allowed.
var blocklistCases = []struct {
	cmd  string
	rule string
}{
	// Wiping the filesystem, and the spellings of it.
	{"rm -rf /", RuleWipe},
	{"rm -rf /*", RuleWipe},
	{"rm -fr /", RuleWipe},
	{"rm -r -f /", RuleWipe},
	{"rm -r /", RuleWipe}, // -f makes it no worse
	{"rm --recursive --force /", RuleWipe},
	{"rm --rec --force /", RuleWipe}, // GNU long-option prefix
	{"rm -rf -- /", RuleWipe},
	{"rm -Rf //", RuleWipe},
	{"rm -rf /.", RuleWipe},
	{"sudo rm -rf /", RuleWipe},
	{"sudo -u root rm -rf /", RuleWipe},
	{"rm --no-preserve-root -rf /", RuleWipe},
	{"rm --no-preserve-root -r /tmp/x", RuleWipe}, // disabling the guard is the tell
	{"rm -rf ~", RuleWipe},
	{"rm -rf ~/", RuleWipe},
	{"rm -rf ~/*", RuleWipe},
	{"rm -rf $HOME", RuleWipe},
	{`rm -rf "${HOME}"`, RuleWipe},
	{"rm -rf /usr", RuleWipe},
	{"rm -rf /etc/*", RuleWipe},
	{"rm -rf /u*", RuleWipe},
	{`'rm' -rf '/'`, RuleWipe},
	{`r\m -rf /`, RuleWipe},
	{`r""m -rf /`, RuleWipe},
	{"/bin/rm -rf /", RuleWipe},
	{"cd /tmp &&   rm \t -rf    /", RuleWipe},
	{"ls\nrm -rf /", RuleWipe},
	{"echo ok; rm -rf / 2>/dev/null", RuleWipe},
	{`bash -c "rm -rf /"`, RuleWipe},
	{"echo 'rm -rf /' | sh", RuleWipe},
	// Quoted text is matched like code; see normalize.go.
	{`echo "rm -rf / is bad"`, RuleWipe},

	// Formatting and raw disks.
	{"mkfs.ext4 /dev/sda1", RuleFormat},
	{"mkfs -t ext4 /dev/sdb", RuleFormat},
	{"sudo mke2fs /dev/sdb1", RuleFormat},
	{"dd if=/dev/zero of=/dev/sda bs=1M", RuleRawDisk},
	{"dd if=/dev/urandom of=/dev/nvme0n1", RuleRawDisk},
	{"dd if=x.img of=/dev/disk/by-id/usb-1", RuleRawDisk},
	{"echo x > /dev/sda", RuleRawDisk},
	{"cat image >/dev/mmcblk0", RuleRawDisk},
	{"cat image >> /dev/vda", RuleRawDisk},
	{"echo x | tee /dev/sdb", RuleRawDisk},
	{"shred -n1 /dev/sda", RuleRawDisk},

	// Fork bombs.
	{":(){ :|:& };:", RuleForkBomb},
	{":(){ :|: & };:", RuleForkBomb},
	{": () { : | : & } ; :", RuleForkBomb},
	{"bomb(){ bomb|bomb& }; bomb", RuleForkBomb},
	{"function bomb { bomb | bomb & }; bomb", RuleForkBomb},
	{"f() { f & f & }; f", RuleForkBomb},

	// Power.
	{"shutdown -h now", RulePower},
	{"sudo reboot", RulePower},
	{"halt", RulePower},
	{"poweroff", RulePower},
	{"init 0", RulePower},
	{"sudo telinit 6", RulePower},
	{"/sbin/shutdown -r now", RulePower},
	{"systemctl reboot", RulePower},
	{"ls; reboot", RulePower},
	{"if true; then reboot; fi", RulePower},
	{"sh -c 'reboot'", RulePower},
	{"su root -c reboot", RulePower},
	{"timeout 5 poweroff", RulePower},
	{"FOO=1 nohup halt", RulePower},
	{"find . -exec reboot ;", RulePower},

	// Permissions on the whole system.
	{"chmod -R 777 /", RulePermissions},
	{"sudo chown -R nobody /", RulePermissions},
	{"chmod --recursive 777 /etc", RulePermissions},

	// Parley's secrets.
	{"cat /proc/self/environ", RuleEnviron},
	{"cat /proc/1/environ", RuleEnviron},
	{`tr '\0' '\n' < /proc/$$/environ`, RuleEnviron},
	{"cd /proc/self && cat environ", RuleEnviron},
	{"cat parley.db", RuleProtected},
	{"sqlite3 /var/lib/parley/parley.db .dump", RuleProtected},
	{"cp /var/lib/parley/parley.db-wal /tmp/", RuleProtected},
	{"cat ../../parley.db-shm", RuleProtected},
	{"cat config.yaml", RuleProtected},
	{"cat /etc/parley/config.yaml", RuleProtected},
	{`cat "/etc/parley/conf"ig.yaml`, RuleProtected},
	{"cat /etc//parley/./config.yaml", RuleProtected},
	{"cat /ETC/Parley/CONFIG.YAML", RuleProtected},
	{"grep token --include=Config.Yaml -r /etc", RuleProtected},

	// Allowed: look-alikes that are not the dangerous thing.
	{"rm -rf ./build", ""},
	{"rm -rf build/", ""},
	{"rm -rf /tmp/build", ""},
	{"rm -rf *", ""}, // the workspace's own contents
	{"rm -rf ~/project/build", ""},
	{"rm -f /tmp/x.log", ""},
	{"rm /", ""}, // not recursive: rm refuses a directory
	{"ls /tmp", ""},
	{"ls -la /", ""},
	{"grep -r reboot docs/", ""},
	{"echo shutdown", ""},
	{"git init", ""},
	{"man mkfs", ""},
	{"dd if=/dev/zero of=disk.img bs=1M count=1", ""},
	{"cat /dev/sda > /dev/null", ""},
	{"echo hi > /dev/stderr", ""},
	{"chmod -R 755 ./site", ""},
	{"chmod 755 /", ""},
	{"cat /proc/cpuinfo", ""},
	{"echo environment", ""},
	{"a(){ echo hi; }; a; echo data|awk 1", ""},
	{"cat myparley.db.txt", ""},
	{"cat notes/config.yml", ""},
	{"ls /var/lib", ""},
	{"", ""},
}

func TestBlocklist(t *testing.T) {
	b := testBlocklist(t)
	for _, tt := range blocklistCases {
		err := b.check(tt.cmd)
		var blocked *BlockedError
		switch {
		case tt.rule == "" && err != nil:
			t.Errorf("%q refused (%v), want allowed", tt.cmd, err)
		case tt.rule != "" && !errors.As(err, &blocked):
			t.Errorf("%q allowed, want refused by %s", tt.cmd, tt.rule)
		case tt.rule != "" && blocked.Rule != tt.rule:
			t.Errorf("%q refused by %s (%v), want %s", tt.cmd, blocked.Rule, err, tt.rule)
		}
	}
}

// A protected directory may contain the workspaces (the data directory):
// the session must still be able to name its own files.
func TestProtectedDirectoryExemptsWorkspace(t *testing.T) {
	data := t.TempDir()
	ws := filepath.Join(data, "workspace")
	p, err := newProtectedPaths([]string{data}, ws)
	if err != nil {
		t.Fatal(err)
	}
	b := &blocklist{protected: p}
	tests := []struct {
		cmd     string
		refused bool
	}{
		{"ls " + data, true},
		{"ls " + data + "/", true},
		{"cat " + data + "/parley.db", true},
		{"cat " + ws + "/../parley.db", true},
		{"cat " + ws + "/s1/../../parley.db", true},
		{"ls " + ws, false},
		{"cat " + ws + "/s1/notes.txt", false},
		{"ls " + data + "-old", false}, // a different directory
		{"ls /tmp" + data, false},
		{"ls data", false}, // directories contribute no base name
	}
	for _, tt := range tests {
		if err := b.check(tt.cmd); (err != nil) != tt.refused {
			t.Errorf("%q: err = %v, want refused = %v", tt.cmd, err, tt.refused)
		}
	}
}

func TestProtectedPathThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.db")
	if err := os.WriteFile(real, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	p, err := newProtectedPaths([]string{filepath.Join(link, "real.db")}, "/nonexistent/workspace")
	if err != nil {
		t.Fatal(err)
	}
	if ref, ok := p.referenced(pathText(real)); !ok {
		t.Errorf("resolved path %s not matched", real)
	} else if !strings.Contains(ref, "real.db") {
		t.Errorf("ref = %q", ref)
	}
}

func TestBlockedCommandDoesNotRun(t *testing.T) {
	tl := newTool(t, func(o *Options) { o.ProtectedPaths = testProtected })
	out, err := call(t, tl, "s1", "touch ran; cat parley.db")
	var blocked *BlockedError
	if !errors.As(err, &blocked) || blocked.Rule != RuleProtected {
		t.Fatalf("got (%q, %v), want a protected-path refusal", out, err)
	}
	if !strings.Contains(err.Error(), "approval cannot override") {
		t.Errorf("error %q does not say approval cannot override it", err)
	}
	if _, err := os.Stat(tl.settings.workspaceRoot); !os.IsNotExist(err) {
		t.Errorf("a refused command created the workspace (stat: %v)", err)
	}
}

func TestNewRejectsRootAsProtected(t *testing.T) {
	if _, err := New(Options{DataDir: t.TempDir(), ProtectedPaths: []string{"/"}}); err == nil {
		t.Error("New accepted / as a protected path")
	}
}

func FuzzBlocklist(f *testing.F) {
	for _, tt := range blocklistCases {
		f.Add(tt.cmd)
	}
	f.Add("()()(){}{}|&;``$(")
	f.Add("~\x00/\xff\xfe")
	f.Add("rm -r ~" + strings.Repeat("/*", 50))
	b := testBlocklist(f)
	f.Fuzz(func(t *testing.T, cmd string) {
		err := b.check(cmd) // must not panic
		var blocked *BlockedError
		if err != nil && (!errors.As(err, &blocked) || blocked.Rule == "") {
			t.Fatalf("check(%q) = %v, want nil or a *BlockedError with a rule", cmd, err)
		}
		if v := visible(cmd, maxCommandRunes); strings.ContainsAny(v, "\n\r") {
			t.Fatalf("visible(%q) = %q spans lines", cmd, v)
		}
	})
}

// The check must stay linear: the model can send a long heredoc, and
// approval summaries run the check too. A quadratic matcher takes minutes
// on these; a linear one, milliseconds.
func TestBlocklistLongInputs(t *testing.T) {
	b := testBlocklist(t)
	const n = 50_000
	for _, cmd := range []string{
		strings.Repeat("rm ", n) + "-rf /",
		strings.Repeat("a() ", n) + "a|a",
		strings.Repeat("systemctl -c ", n),
		strings.Repeat("(", n) + strings.Repeat(")", n),
		strings.Repeat("/var/lib/parley/", n),
		strings.Repeat("x", n) + strings.Repeat("/./", n),
	} {
		b.check(cmd)
	}
}
