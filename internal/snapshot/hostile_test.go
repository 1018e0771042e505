package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestUserAndTreeConfigurationRunNothingAndChangeNoBytes: the user's
// ~/.gitconfig converts line endings and names a clean filter, a
// fsmonitor and hooks; the work tree's .gitattributes asks for the
// filter, CRLF and ident expansion. The store reads none of it but the
// excludes file: it runs nothing and stores and restores the bytes as
// they are.
func TestUserAndTreeConfigurationRunNothingAndChangeNoBytes(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	home, markers, work := t.TempDir(), t.TempDir(), t.TempDir()
	script := func(name string) string {
		path := filepath.Join(markers, name+".sh")
		os.WriteFile(path, []byte("#!/bin/sh\nenv > "+filepath.Join(markers, name+".ran")+"\ncat\n"), 0o755)
		return path
	}
	hooks := filepath.Join(home, "hooks")
	os.MkdirAll(hooks, 0o755)
	os.Rename(script("hook"), filepath.Join(hooks, "post-index-change"))
	os.WriteFile(filepath.Join(home, "ignore"), []byte("*.secret\n"), 0o644)
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(`[core]
	autocrlf = true
	fsmonitor = `+script("fsmonitor")+`
	hooksPath = `+hooks+`
	excludesFile = ~/ignore
[filter "x"]
	clean = `+script("clean")+`
	smudge = `+script("smudge")+`
	required = true
`), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("OPENAI_API_KEY", "sk-snapshot-secret-0123456789")

	os.WriteFile(filepath.Join(work, ".gitattributes"), []byte("* filter=x text eol=crlf ident\n"), 0o644)
	body := "$Id$\nunix lines\nand a crlf one\r\n"
	os.WriteFile(filepath.Join(work, "f.txt"), []byte(body), 0o644)
	os.WriteFile(filepath.Join(work, "token.secret"), []byte("key\n"), 0o644)

	s := openStore(t, work)
	before, err := s.Take(ctx, "ses1", "before")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, "f.txt"), []byte("replaced\n"), 0o644)
	after, _ := s.Take(ctx, "ses1", "after")
	patch, err := s.Diff(ctx, before.ID, after.ID)
	if err != nil || len(patch.Files) != 1 {
		t.Fatalf("diff = %+v, %v", patch, err)
	}
	if _, err := s.Restore(ctx, "ses1", before.ID, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "f.txt")); string(got) != body {
		t.Errorf("restored f.txt = %q, want the bytes %q", got, body)
	}
	// The user's excludes file is respected: token.secret is ignored, so it
	// is kept under the limit for ignored files, never diffed as tracked.
	if ign := s.ignoredOf(ctx, []string{"token.secret", "f.txt"}); !ign["token.secret"] || ign["f.txt"] {
		t.Errorf("the user's excludes file was not respected: ignored %v", ign)
	}
	ran, _ := filepath.Glob(filepath.Join(markers, "*.ran"))
	if len(ran) > 0 {
		t.Errorf("the configuration ran: %v", ran)
	}
}
