package toolsearchtest

import "testing"

// TestToolsLookReal: names are distinct for up to 1,000 tools and the
// schemas are 300–600 bytes, as the tests that use them assume.
func TestToolsLookReal(t *testing.T) {
	names := map[string]bool{}
	for _, x := range Tools(1000) {
		if n := len(x.Parameters()); n < 300 || n > 600 {
			t.Errorf("%s: schema of %d bytes", x.Name(), n)
		}
		if names[x.Name()] {
			t.Errorf("%s twice", x.Name())
		}
		names[x.Name()] = true
	}
}
