package config

import (
	"fmt"
	"time"
)

// Backup configures scheduled local backups of the SQLite database
// (docs/backups.md): every Every, a copy into <data_dir>/backups/
// parley-<UTC time>.db, of which the newest Keep are kept.
type Backup struct {
	// Every is how often to back up, as a Go duration ("24h", "6h30m");
	// "off" (the default) or "0" takes no scheduled backups.
	Every string `mapstructure:"every"`
	// Keep is how many scheduled backups to keep; older ones are deleted.
	Keep int `mapstructure:"keep"`
}

// BackupOff is backup.every's value that takes no scheduled backups.
const BackupOff = "off"

// MinBackupEvery is the shortest backup.every.
const MinBackupEvery = time.Minute

func defaultBackup() Backup { return Backup{Every: BackupOff, Keep: 7} }

// Interval is backup.every as a duration; 0 when scheduled backups are
// off. The configuration is validated when loaded, so it parses.
func (b Backup) Interval() time.Duration {
	d, _ := b.interval()
	return d
}

func (b Backup) interval() (time.Duration, error) {
	switch b.Every {
	case "", BackupOff, "0":
		return 0, nil
	}
	return time.ParseDuration(b.Every)
}

// validate checks the backup.* keys; driver is store.driver.
func (b *Backup) validate(driver string) []string {
	p := outOfRange(bound[int]{"backup.keep", b.Keep, 1, 10000})
	d, err := b.interval()
	switch {
	case err != nil:
		p = append(p, fmt.Sprintf("backup.every: %q is not a duration; want e.g. 24h, 6h or off", Quiet(b.Every)))
	case d != 0 && d < MinBackupEvery:
		p = append(p, fmt.Sprintf("backup.every: %s is too often; want at least %s, or off", d, MinBackupEvery))
	case d != 0 && driver == StorePostgres:
		p = append(p, "backup.every: scheduled backups are for the SQLite file; with store.driver postgres back up with pg_dump (docs/backups.md) and set backup.every: off")
	}
	return p
}
