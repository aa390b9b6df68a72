package postgres

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlanEdit(t *testing.T) {
	old := []memoryEntry{{1, "a"}, {2, "b"}, {3, "c"}}
	tests := []struct {
		name string
		old  []memoryEntry
		next []string
		want memoryPlan
	}{
		{"unchanged", old, []string{"a", "b", "c"}, memoryPlan{}},
		{"add", old, []string{"a", "b", "c", "d"}, memoryPlan{insert: []string{"d"}}},
		{"add to empty", nil, []string{"a"}, memoryPlan{insert: []string{"a"}}},
		{"replace two", old, []string{"A", "b", "C"}, memoryPlan{update: []memoryEntry{{1, "A"}, {3, "C"}}}},
		{"remove middle", old, []string{"a", "c"}, memoryPlan{del: []int64{2}}},
		{"remove all", old, nil, memoryPlan{del: []int64{1, 2, 3}}},
		{"remove a duplicate", []memoryEntry{{1, "x"}, {2, "x"}}, []string{"x"}, memoryPlan{del: []int64{2}}},
		// A new entry anywhere but the end would sort before older ones,
		// so what follows it is written again.
		{"insert in the middle", old, []string{"a", "x", "b", "c"},
			memoryPlan{del: []int64{2, 3}, insert: []string{"x", "b", "c"}}},
		{"replace and add", old, []string{"a", "B", "c", "d"},
			memoryPlan{del: []int64{2, 3}, insert: []string{"B", "c", "d"}}},
	}
	for _, tt := range tests {
		got := planEdit(tt.old, tt.next)
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(memoryPlan{}, memoryEntry{})); diff != "" {
			t.Errorf("%s: plan (-want +got):\n%s", tt.name, diff)
		}
	}
}
