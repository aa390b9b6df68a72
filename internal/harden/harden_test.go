package harden

import "testing"

func TestNonDumpable(t *testing.T) {
	if err := NonDumpable(); err != nil {
		t.Fatal(err)
	}
	dumpable, err := Dumpable()
	if err != nil || dumpable {
		t.Fatalf("Dumpable() = %v, %v after NonDumpable", dumpable, err)
	}
}
