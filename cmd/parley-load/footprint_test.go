package main

import (
	"strings"
	"testing"
)

func TestParseStatusKiB(t *testing.T) {
	status := "Name:\tparley\nVmHWM:\t   47612 kB\nVmRSS:\t   47300 kB\nRssAnon:\t    7276 kB\nRssFile:\t   40024 kB\nThreads:\t7\n"
	got, err := parseStatusKiB(strings.NewReader(status), "RssAnon", "RssFile", "VmRSS")
	if err != nil || got["RssAnon"] != 7276 || got["RssFile"] != 40024 || got["VmRSS"] != 47300 {
		t.Fatalf("parseStatusKiB = %v, %v", got, err)
	}
	if _, err := parseStatusKiB(strings.NewReader(status), "RssShmem"); err == nil {
		t.Error("a missing field was not an error")
	}
	if _, err := parseStatusKiB(strings.NewReader("RssAnon:\tlots kB\n"), "RssAnon"); err == nil {
		t.Error("a malformed value was not an error")
	}
}
