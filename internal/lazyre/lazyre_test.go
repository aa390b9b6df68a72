package lazyre

import (
	"sync"
	"testing"
)

func TestMustCompileOnce(t *testing.T) {
	re := MustCompile(`^a+$`)
	first := re()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if re() != first {
				t.Error("a second *regexp.Regexp")
			}
		})
	}
	wg.Wait()
	if !first.MatchString("aaa") || first.MatchString("b") {
		t.Fatal("wrong expression")
	}
}

func TestMustCompileAll(t *testing.T) {
	all := MustCompileAll(`a`, `b`)
	if got := all(); len(got) != 2 || !got[1].MatchString("b") || &got[0] != &all()[0] {
		t.Fatalf("MustCompileAll = %v", got)
	}
}

func TestInvalidPanicsOnFirstUse(t *testing.T) {
	re := MustCompile(`(`) // no panic yet: nothing is compiled
	defer func() {
		if recover() == nil {
			t.Fatal("an invalid expression did not panic when used")
		}
	}()
	re()
}
