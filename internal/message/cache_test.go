package message

import "testing"

func TestCacheFiguresOf(t *testing.T) {
	for _, c := range []struct {
		name          string
		last, session Usage
		want          *CacheFigures
		lastPct       int
	}{
		{"no step yet", Usage{}, Usage{}, nil, 0},
		{"nothing cached", Usage{Input: 1000}, Usage{Input: 1000}, nil, 0},
		{"a write only", Usage{Input: 1000, CacheWrite: 900}, Usage{Input: 1000, CacheWrite: 900}, &CacheFigures{0, 0}, 0},
		{"a hit", Usage{Input: 1100, CachedInput: 1000}, Usage{Input: 2100, CachedInput: 1000}, &CacheFigures{1000.0 / 1100, 1000.0 / 2100}, 90},
		// A provider reporting more cached than input tokens counts as all cached.
		{"over-reported", Usage{Input: 100, CachedInput: 120}, Usage{Input: 100, CachedInput: 120}, &CacheFigures{1, 1}, 100},
	} {
		got := CacheFiguresOf(c.last, c.session)
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%s: CacheFiguresOf = %+v, want %+v", c.name, got, c.want)
		}
		if p := c.last.CachedPercent(); p != c.lastPct {
			t.Errorf("%s: CachedPercent = %d, want %d", c.name, p, c.lastPct)
		}
	}
}
