package snapshot

import (
	"slices"
	"testing"
)

// The change set holds its paths sorted, each once, whether update is
// taken as it is (walk order, nothing removed: not copied) or merged
// with remove; each record starts "gone".
func TestChangeSetPathsSortedOnce(t *testing.T) {
	for _, c := range []struct {
		update, remove, want []string
		shared               bool
	}{
		{[]string{"a", "a/b", "b"}, nil, []string{"a", "a/b", "b"}, true},
		{[]string{"b", "a"}, nil, []string{"a", "b"}, false},
		{[]string{"a", "a"}, nil, []string{"a"}, false},
		{[]string{"a", "c"}, []string{"b", "c"}, []string{"a", "b", "c"}, false},
		{nil, []string{"x"}, []string{"x"}, false},
		{nil, nil, nil, true},
	} {
		update := slices.Clone(c.update)
		s := newChangeSet(update, c.remove)
		if !slices.Equal(s.paths, c.want) || len(s.vals) != len(c.want) {
			t.Fatalf("%q + %q: paths %q (%d records), want %q", c.update, c.remove, s.paths, len(s.vals), c.want)
		}
		if len(update) > 0 && (&s.paths[0] == &update[0]) != c.shared {
			t.Fatalf("%q + %q: update's list shared %v, want %v", c.update, c.remove, !c.shared, c.shared)
		}
		if !slices.Equal(update, c.update) {
			t.Fatalf("update changed: %q, was %q", update, c.update)
		}
		for i, r := range s.vals {
			if !r.gone {
				t.Fatalf("%q: record %d not gone before hashing", c.want, i)
			}
		}
		for _, p := range c.want {
			if s.at(p) == nil {
				t.Fatalf("%q: at(%q) nil", c.want, p)
			}
		}
		if s.at("zz") != nil {
			t.Fatal("at found a path not in the set")
		}
	}
}
