package rowdata

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPlanMemoryEdit pins the plan both engines apply: which rows an edit
// keeps, updates, deletes and inserts.
func TestPlanMemoryEdit(t *testing.T) {
	old := []MemoryEntry{{1, "a"}, {2, "b"}, {3, "c"}}
	tests := []struct {
		name string
		old  []MemoryEntry
		next []string
		want MemoryPlan
	}{
		{"unchanged", old, []string{"a", "b", "c"}, MemoryPlan{}},
		{"add", old, []string{"a", "b", "c", "d"}, MemoryPlan{Insert: []string{"d"}}},
		{"add two", old, []string{"a", "b", "c", "d", "e"}, MemoryPlan{Insert: []string{"d", "e"}}},
		{"add to empty", nil, []string{"a"}, MemoryPlan{Insert: []string{"a"}}},
		{"replace first", old, []string{"A", "b", "c"}, MemoryPlan{Update: []MemoryEntry{{1, "A"}}}},
		{"replace middle", old, []string{"a", "B", "c"}, MemoryPlan{Update: []MemoryEntry{{2, "B"}}}},
		{"replace two", old, []string{"A", "b", "C"}, MemoryPlan{Update: []MemoryEntry{{1, "A"}, {3, "C"}}}},
		{"remove first", old, []string{"b", "c"}, MemoryPlan{Delete: []int64{1}}},
		{"remove middle", old, []string{"a", "c"}, MemoryPlan{Delete: []int64{2}}},
		{"remove last", old, []string{"a", "b"}, MemoryPlan{Delete: []int64{3}}},
		{"remove all", old, nil, MemoryPlan{Delete: []int64{1, 2, 3}}},
		{"remove a duplicate", []MemoryEntry{{1, "x"}, {2, "x"}}, []string{"x"}, MemoryPlan{Delete: []int64{2}}},
		// A new entry anywhere but the end would sort before older ones,
		// so what follows it is written again.
		{"insert in the middle", old, []string{"a", "x", "b", "c"},
			MemoryPlan{Delete: []int64{2, 3}, Insert: []string{"x", "b", "c"}}},
		{"reverse", old, []string{"c", "b", "a"},
			MemoryPlan{Update: []MemoryEntry{{1, "c"}, {3, "a"}}}},
		{"replace and add", old, []string{"a", "B", "c", "d"},
			MemoryPlan{Delete: []int64{2, 3}, Insert: []string{"B", "c", "d"}}},
	}
	for _, tt := range tests {
		got := PlanMemoryEdit(tt.old, tt.next)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: plan (-want +got):\n%s", tt.name, diff)
		}
	}
}
