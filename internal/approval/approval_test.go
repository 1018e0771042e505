package approval

import (
	"os"
	"path/filepath"
	"testing"
)

func TestApprovalCoversExactlyTheDigest(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	d1 := Digest(map[string]any{"command": "srv", "args": []string{"-v"}})
	d2 := Digest(map[string]any{"command": "srv", "args": []string{"-x"}})
	if s.Approved("/p/.agent/config.json", KindMCP, "fs", d1) {
		t.Fatal("approved before any approval")
	}
	if err := s.Approve("/p/.agent/config.json", KindMCP, "fs", d1); err != nil {
		t.Fatal(err)
	}
	if !Open(dir).Approved("/p/.agent/config.json", KindMCP, "fs", d1) {
		t.Fatal("approval not kept")
	}
	for _, c := range []struct{ project, kind, name, digest string }{
		{"/p/.agent/config.json", KindMCP, "fs", d2},
		{"/q/.agent/config.json", KindMCP, "fs", d1},
		{"/p/.agent/config.json", KindHook, "fs", d1},
		{"/p/.agent/config.json", KindMCP, "git", d1},
	} {
		if s.Approved(c.project, c.kind, c.name, c.digest) {
			t.Errorf("%+v approved by another entry's approval", c)
		}
	}
	// A new approval of the same entry replaces the old one.
	if err := s.Approve("/p/.agent/config.json", KindMCP, "fs", d2); err != nil {
		t.Fatal(err)
	}
	if s.Approved("/p/.agent/config.json", KindMCP, "fs", d1) || !s.Approved("/p/.agent/config.json", KindMCP, "fs", d2) {
		t.Fatal("re-approval did not replace the old digest")
	}
	fi, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("approvals file mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestCorruptFileApprovesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(dir)
	if s.Approved("/p", KindMCP, "fs", "x") {
		t.Fatal("a corrupt file approved something")
	}
	if err := s.Approve("/p", KindMCP, "fs", "x"); err == nil {
		t.Fatal("approving over a corrupt file should fail rather than lose it")
	}
}
