package telegram

import (
	"testing"
)

// BenchmarkNormalize: one group update, decoded twice (tgbotapi and the
// extension fields) and normalized, with its reply chain recorded in an
// in-memory State.
func BenchmarkNormalize(b *testing.B) {
	a := offlineAdapter(b, newMemState())
	raw := []byte(`{"update_id":2,"message":{"message_id":8,"from":` + alice + `,"chat":` + group +
		`,"date":1,"text":"@parley_bot what changed in the release notes?","entities":[{"type":"mention","offset":0,"length":11}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		u, err := decodeUpdate(raw)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok, err := a.normalizeMessage(b.Context(), u.tg.Message, u.ext.Message, testMe); err != nil || !ok {
			b.Fatalf("normalize: %v %v", ok, err)
		}
	}
}
