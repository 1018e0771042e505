package safefile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostile makes, in a project directory, one file of each kind a cloned
// repository can commit where the agent expects a small text file; the
// returned map goes from the file's name to the refusal it must get.
func hostile(t *testing.T, project string) map[string]error {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("SECRET-KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(secret, filepath.Join(project, "secret")))
	must(os.Symlink("/proc/self/environ", filepath.Join(project, "environ")))
	must(os.Symlink("/dev/zero", filepath.Join(project, "zero")))
	must(syscall.Mkfifo(filepath.Join(project, "fifo"), 0o644))
	must(os.WriteFile(filepath.Join(project, "big"), make([]byte, 2048), 0o644))
	return map[string]error{
		"secret":  ErrOutside,
		"environ": ErrOutside,
		"zero":    ErrOutside,
		"fifo":    ErrNotRegular,
		"big":     ErrTooLarge,
	}
}

func TestReadRefusesWhatTheToolsRefuse(t *testing.T) {
	project := t.TempDir()
	for name, want := range hostile(t, project) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			data, err := Read(context.Background(), filepath.Join(project, name), project, 1024)
			if !errors.Is(err, want) || data != nil {
				t.Fatalf("Read: %q, %v; want %v", data, err, want)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("Read took %v", d)
			}
			if w := Warning(name, err); !strings.HasPrefix(w, name+" is skipped: ") {
				t.Errorf("Warning = %q", w)
			}
		})
	}
}

func TestReadWithoutHomeStillRefusesDevicesAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	hostile(t, dir)
	for name, want := range map[string]error{"zero": ErrNotRegular, "fifo": ErrNotRegular, "big": ErrTooLarge, "environ": ErrNotRegular} {
		if _, err := Read(context.Background(), filepath.Join(dir, name), "", 16); !errors.Is(err, want) {
			t.Errorf("%s: %v; want %v", name, err, want)
		}
	}
	if data, err := Read(context.Background(), filepath.Join(dir, "secret"), "", 1024); err != nil || string(data) != "SECRET-KEY" {
		t.Errorf("a link with no home to keep to: %q, %v", data, err)
	}
}

func TestReadFollowsLinksInsideHome(t *testing.T) {
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "docs", "rules.md"), []byte("be kind"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("docs/rules.md", filepath.Join(project, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	// The home itself reached through a link is resolved too.
	link := filepath.Join(t.TempDir(), "proj")
	if err := os.Symlink(project, link); err != nil {
		t.Fatal(err)
	}
	for _, home := range []string{project, link} {
		data, err := Read(context.Background(), filepath.Join(home, "AGENTS.md"), home, 1024)
		if err != nil || string(data) != "be kind" {
			t.Errorf("home %s: %q, %v", home, data, err)
		}
	}
}

func TestReadMissingIsNotExist(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("nowhere", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"missing", "dangling"} {
		_, err := Read(context.Background(), filepath.Join(dir, name), dir, 1024)
		if !errors.Is(err, fs.ErrNotExist) || Refused(err) {
			t.Errorf("%s: %v; want not-exist", name, err)
		}
	}
}

func TestReadIsCancellable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, path, dir, 1024); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a cancelled context: %v", err)
	}
}

// /proc and /sys are refused whatever the home: a project at / cannot
// hand over the environment.
func TestReadRefusesKernelPseudoFiles(t *testing.T) {
	for _, path := range []string{"/proc/self/environ", "/proc/self/cmdline", "/sys/kernel/hostname"} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		if _, err := Read(context.Background(), path, "/", 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s with home /: %v", path, err)
		}
	}
}
