package lastmodel

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func TestSaveAndLookupPerProjectThenGlobal(t *testing.T) {
	data := t.TempDir()
	if m, s := Lookup(data, "/p", "http://h/v1"); m != "" || s != None {
		t.Fatalf("empty memory: %q %q", m, s)
	}
	if err := Save(data, "/p", "http://h/v1/", "qwen"); err != nil {
		t.Fatal(err)
	}
	if err := Save(data, "/q", "http://h/v1", "llama"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir, url, model string
		scope           Scope
	}{
		{"/p", "http://h/v1", "qwen", Project},
		{"/q", "http://h/v1", "llama", Project},
		{"/r", "http://h/v1", "llama", Global},
		{"/p", "http://other/v1", "", None},
	} {
		if m, s := Lookup(data, c.dir, c.url); m != c.model || s != c.scope {
			t.Errorf("Lookup(%s, %s) = %q %q, want %q %q", c.dir, c.url, m, s, c.model, c.scope)
		}
	}
	info, err := os.Stat(Path(data))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
}

func TestCorruptMemoryIsEmpty(t *testing.T) {
	data := t.TempDir()
	if err := os.WriteFile(Path(data), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if m, s := Lookup(data, "/p", "u"); m != "" || s != None {
		t.Fatalf("corrupt memory gave %q %q", m, s)
	}
	if err := Save(data, "/p", "u", "m"); err != nil {
		t.Fatal(err)
	}
	if m, _ := Lookup(data, "/p", "u"); m != "m" {
		t.Fatalf("after save over a corrupt file: %q", m)
	}
}

// TestLookupSkipsHostileFile: a FIFO, or a link leading out of the data
// directory, where the memory belongs is treated as empty, without
// blocking the start on it.
func TestLookupSkipsHostileFile(t *testing.T) {
	for _, kind := range []string{"fifo", "link-outside"} {
		data := t.TempDir()
		var err error
		switch kind {
		case "fifo":
			err = syscall.Mkfifo(Path(data), 0o644)
		case "link-outside":
			other := t.TempDir()
			if err := Save(other, "/p", "http://h/v1", "leaked"); err != nil {
				t.Fatal(err)
			}
			err = os.Symlink(Path(other), Path(data))
		}
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan string, 1)
		go func() {
			m, _ := Lookup(data, "/p", "http://h/v1")
			done <- m
		}()
		select {
		case m := <-done:
			if m != "" {
				t.Errorf("%s: Lookup = %q, want nothing", kind, m)
			}
		case <-time.After(time.Second):
			t.Fatalf("%s: Lookup did not return within 1s", kind)
		}
	}
}
