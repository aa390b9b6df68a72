package config

import (
	"strings"
	"testing"
	"time"
)

func TestBackupKeys(t *testing.T) {
	t.Parallel()
	def := mustLoadYAML(t, "", nil)
	if def.Backup.Every != BackupOff || def.Backup.Interval() != 0 || def.Backup.Keep != 7 {
		t.Errorf("defaults = %+v (interval %s), want off and keep 7", def.Backup, def.Backup.Interval())
	}
	ok := []struct {
		name, yaml string
		env        map[string]string
		every      time.Duration
		keep       int
	}{
		{"unquoted off", "backup:\n  every: off\n", nil, 0, 7},
		{"zero", "backup:\n  every: 0\n", nil, 0, 7},
		{"a day", "backup:\n  every: 24h\n  keep: 30\n", nil, 24 * time.Hour, 30},
		{"from the environment", "", map[string]string{"PARLEY_BACKUP_EVERY": "6h30m", "PARLEY_BACKUP_KEEP": "2"}, 6*time.Hour + 30*time.Minute, 2},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustLoadYAML(t, tt.yaml, tt.env)
			if got := cfg.Backup.Interval(); got != tt.every || cfg.Backup.Keep != tt.keep {
				t.Errorf("every %s keep %d, want %s and %d", got, cfg.Backup.Keep, tt.every, tt.keep)
			}
		})
	}
	bad := []struct{ name, yaml, want string }{
		{"not a duration", "backup:\n  every: daily\n", `backup.every: "daily" is not a duration; want e.g. 24h, 6h or off`},
		{"too often", "backup:\n  every: 10s\n", "backup.every: 10s is too often; want at least 1m0s, or off"},
		{"keep none", "backup:\n  keep: 0\n", "backup.keep: 0 is out of range; want 1 to 10000"},
		{"postgres", "store:\n  driver: postgres\n  postgres_url: postgres://u@h/db\nbackup:\n  every: 24h\n", "backup.every: scheduled backups are for the SQLite file; with store.driver postgres back up with pg_dump"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadYAML(t, tt.yaml, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v, want a problem saying %q", err, tt.want)
			}
		})
	}
}
