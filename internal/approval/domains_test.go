package approval

import "testing"

// Domains remembers per tool and host in the data dir's file, across
// stores (processes); a nil store remembers nothing.
func TestDomainsRemembered(t *testing.T) {
	dir := t.TempDir()
	d := Domains{Store: Open(dir)}
	if d.Remembered("web_fetch", "go.dev") {
		t.Fatal("remembered before")
	}
	if err := d.Remember("web_fetch", "go.dev"); err != nil {
		t.Fatal(err)
	}
	again := Domains{Store: Open(dir)}
	if !again.Remembered("web_fetch", "go.dev") || again.Remembered("web_fetch", "pkg.go.dev") || again.Remembered("web_search", "go.dev") {
		t.Error("wrong memory")
	}
	if (Domains{}).Remembered("web_fetch", "go.dev") || (Domains{}).Remember("web_fetch", "go.dev") != nil {
		t.Error("a nil store")
	}
}
