package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// plantConfig makes path one of the files a hostile repository commits as
// a configuration file; leak is a model name that must not be configured
// through it.
func plantConfig(t *testing.T, kind, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	switch kind {
	case "link-outside":
		secret := filepath.Join(t.TempDir(), "secret.json")
		writeJSON(t, secret, `{"model": "leaked-secret-model"}`)
		err = os.Symlink(secret, path)
	case "proc-environ":
		err = os.Symlink("/proc/self/environ", path)
	case "dev-zero":
		err = os.Symlink("/dev/zero", path)
	case "fifo":
		err = syscall.Mkfifo(path, 0o644)
	case "oversize":
		err = os.WriteFile(path, []byte(`{"model": "leaked-secret-model"}`+strings.Repeat(" ", maxConfigFileBytes)), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

var hostileConfigKinds = []string{"link-outside", "proc-environ", "dev-zero", "fifo", "oversize"}

// loadWithin runs Load and fails the test when it takes more than a
// second.
func loadWithin(t *testing.T, flags Flags, dir string, getenv func(string) string) (*Config, error) {
	t.Helper()
	type result struct {
		c   *Config
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := Load(flags, dir, getenv)
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		return r.c, r.err
	case <-time.After(time.Second):
		t.Fatal("Load did not return within 1s")
		return nil, nil
	}
}

// A project's .agent/config.json that is a link out of the project, a
// device, a FIFO or too large is skipped with a warning naming it; the
// agent starts all the same.
func TestProjectConfigFollowsTheToolsRules(t *testing.T) {
	for _, kind := range hostileConfigKinds {
		t.Run(kind, func(t *testing.T) {
			repo := t.TempDir()
			path := filepath.Join(repo, ".agent", "config.json")
			plantConfig(t, kind, path)
			c, err := loadWithin(t, Flags{}, repo, envOf(map[string]string{"HOME": t.TempDir()}))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Model == "leaked-secret-model" || c.ProjectFile != "" {
				t.Errorf("the file was used: model %q, project file %q", c.Model, c.ProjectFile)
			}
			if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, path+" is skipped: ") {
				t.Errorf("warnings do not name %s:\n%s", path, w)
			}
		})
	}
}

// The user's config file is kept to its own directory; one named with
// --config is the user's choice, but a FIFO or device there is an error,
// promptly.
func TestUserConfigFollowsTheToolsRules(t *testing.T) {
	for _, kind := range hostileConfigKinds {
		t.Run(kind, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, ".config", "agent", "config.json")
			plantConfig(t, kind, path)
			c, err := loadWithin(t, Flags{}, t.TempDir(), envOf(map[string]string{"HOME": home}))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Model == "leaked-secret-model" || c.UserFile != "" {
				t.Errorf("the file was used: model %q, user file %q", c.Model, c.UserFile)
			}
			if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, path+" is skipped: ") {
				t.Errorf("warnings do not name %s:\n%s", path, w)
			}
		})
	}
	fifo := filepath.Join(t.TempDir(), "config.json")
	plantConfig(t, "fifo", fifo)
	if _, err := loadWithin(t, Flags{ConfigFile: fifo}, t.TempDir(), envOf(map[string]string{"HOME": t.TempDir()})); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("--config on a FIFO: %v", err)
	}
}
