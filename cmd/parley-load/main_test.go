package main

import (
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr bool
	}{
		{"defaults", nil, false},
		{"discord", []string{"-platform", "discord", "-users", "3"}, false},
		{"slack", []string{"-platform", "slack", "-limits"}, false},
		{"unknown platform", []string{"-platform", "matrix"}, true},
		{"no users", []string{"-users", "0"}, true},
		{"negative delay", []string{"-model-delay", "-1s"}, true},
		{"zero timeout", []string{"-timeout", "0"}, true},
		{"stray argument", []string{"now"}, true},
		{"without metrics", []string{"-metrics=false", "-ramp", "10s"}, false},
		{"negative ramp", []string{"-ramp", "-1s"}, true},
		{"delivery", []string{"-bot-added", "-env", "PARLEY_LIMITS_TURNS_PER_MINUTE=0", "-env", "A=b=c"}, false},
		{"env without a value", []string{"-env", "PARLEY_X"}, true},
		{"env without a key", []string{"-env", "=1"}, true},
		{"soak", []string{"-turns-total", "100000", "-duration", "20m", "-mem-every", "10000", "-mem-settle", "0"}, false},
		{"footprint", []string{"-idle", "20s", "-rounds", "3", "-footprint-csv", "soak.csv", "-restarts", "3"}, false},
		{"negative soak", []string{"-turns-total", "-1"}, true},
		{"no rounds", []string{"-rounds", "0"}, true},
		{"rounds and turns-total", []string{"-rounds", "2", "-turns-total", "100"}, true},
		{"negative idle", []string{"-idle", "-1s"}, true},
		{"negative mem-settle", []string{"-mem-settle", "-1s"}, true},
		{"negative restarts", []string{"-restarts", "-1"}, true},
		{"postgres", []string{"-postgres", "postgres://parley@127.0.0.1:5432/postgres"}, false},
		{"replicas", []string{"-replicas", "3", "-postgres", "postgresql://parley@db/postgres"}, false},
		{"postgres over a socket", []string{"-postgres", "postgres://parley@/postgres?host=/run/postgresql&port=5432"}, false},
		{"replicas without postgres", []string{"-replicas", "2"}, true},
		{"no replicas", []string{"-replicas", "0", "-postgres", "postgres://parley@db/postgres"}, true},
		{"postgres not a URL", []string{"-postgres", "host=db user=parley"}, true},
		{"postgres of another scheme", []string{"-postgres", "mysql://parley@db/x"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseFlags(tt.args, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseFlags(%q) = %+v, %v; want error %v", tt.args, o, err, tt.wantErr)
			}
		})
	}
}

func TestParseFlagsValues(t *testing.T) {
	o, err := parseFlags(nil, io.Discard)
	if err != nil || o.users != 100 || o.messages != 5 || o.timeout != 2*time.Minute || o.platform != platformTelegram ||
		!o.metrics || o.foot.idle != time.Second || o.foot.rounds != 1 || o.foot.memSettle != 3*time.Second ||
		!o.limits || o.modelLatency != 360*time.Millisecond || o.answerChars != 276 || o.modelDelay != 0 {
		t.Fatalf("defaults %+v, %v", o, err)
	}
	o, err = parseFlags([]string{"-bin", "parley", "-bot-added", "-env", "A=1", "-env", "B=2"}, io.Discard)
	if err != nil || !filepath.IsAbs(o.bin) || filepath.Base(o.bin) != "parley" || !o.delivery.botAdded ||
		!slices.Equal(o.delivery.env, envFlags{"A=1", "B=2"}) {
		t.Fatalf("parsed %+v, %v: want an absolute -bin, -bot-added and both -env", o, err)
	}
}
