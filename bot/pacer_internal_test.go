package bot

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func TestPacerDropsIdleBuckets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewPacer(PacerConfig{
			Platform:     "telegram",
			Capabilities: Capabilities{EditEvery: time.Second, EditBurst: 1},
			IdleAfter:    time.Minute,
		})
		for i := range 1000 {
			if err := p.Wait(t.Context(), p.Key(Thread{Platform: "telegram", Chat: fmt.Sprint(i)})); err != nil {
				t.Fatal(err)
			}
		}
		penalized := p.Key(Thread{Platform: "telegram", Chat: "penalized"})
		p.Penalize(penalized, 5*time.Minute)
		if n := p.bucketCount(); n != 1001 {
			t.Fatalf("%d buckets, want 1001", n)
		}
		time.Sleep(2 * time.Minute)
		p.Wait(t.Context(), p.Key(Thread{Platform: "telegram", Chat: "new"}))
		if n := p.bucketCount(); n != 2 {
			t.Errorf("%d buckets after the idle ones were swept, want 2 (the penalized one and the new one)", n)
		}
		time.Sleep(5 * time.Minute)
		p.Wait(t.Context(), p.Key(Thread{Platform: "telegram", Chat: "newer"}))
		if n := p.bucketCount(); n != 1 {
			t.Errorf("%d buckets once the penalty is over, want 1", n)
		}
	})
}
