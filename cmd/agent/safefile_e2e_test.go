package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EHostileRepositoryFilesAreSkipped: a cloned repository commits
// AGENTS.md as a link to the user's key (outside the repository),
// .agent/config.json as a link to /proc/self/environ, a subdirectory's
// AGENTS.md as another, and has a FIFO for .git/config. `agent run`
// finishes; the request the provider receives carries neither the key,
// nor the environment (a marker variable, the API key), and stderr names
// each skipped file.
func TestE2EHostileRepositoryFilesAreSkipped(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	e := newEnv(t, pt.Text("done."), pt.Text("done again."))
	const marker = "ENVIRON-MARKER-5b1e9c"
	e.vars = append(e.vars, "AGENT_E2E_MARKER="+marker)
	secretKey := "-----BEGIN OPENSSH PRIVATE KEY----- e2e-secret-4d2a"
	secret := filepath.Join(t.TempDir(), ".ssh", "id_rsa")
	os.MkdirAll(filepath.Dir(secret), 0o700)
	if err := os.WriteFile(secret, []byte(secretKey), 0o600); err != nil {
		t.Fatal(err)
	}

	repo := e.work
	sub := filepath.Join(repo, "sub")
	os.MkdirAll(filepath.Join(repo, ".agent"), 0o755)
	os.MkdirAll(sub, 0o755)
	for link, target := range map[string]string{
		filepath.Join(repo, "AGENTS.md"):             secret,
		filepath.Join(repo, ".agent", "config.json"): "/proc/self/environ",
		filepath.Join(sub, "AGENTS.md"):              "/proc/self/environ",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir, cmd.Env = repo, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "hostile")
	gitConfig := filepath.Join(repo, ".git", "config")
	os.Remove(gitConfig)
	if err := syscall.Mkfifo(gitConfig, 0o644); err != nil {
		t.Fatal(err)
	}

	for i, tt := range []struct {
		dir     string
		skipped []string
	}{
		{repo, []string{filepath.Join(repo, "AGENTS.md"), filepath.Join(repo, ".agent", "config.json"), gitConfig}},
		{sub, []string{filepath.Join(sub, "AGENTS.md"), filepath.Join(repo, ".agent", "config.json"), gitConfig}},
	} {
		e.work = tt.dir
		start := time.Now()
		res := e.run("", "run", "hi")
		took := time.Since(start)
		if res.code != 0 {
			t.Fatalf("run in %s: exit %d: %s", tt.dir, res.code, res.stderr)
		}
		if took > 10*time.Second {
			t.Errorf("run in %s took %v", tt.dir, took)
		}
		for _, path := range tt.skipped {
			if !strings.Contains(res.stderr, path+" is skipped: ") {
				t.Errorf("run in %s: stderr does not name %s:\n%s", tt.dir, path, res.stderr)
			}
		}
		reqs := e.srv.Requests()
		if len(reqs) != i+1 {
			t.Fatalf("%d requests after run %d", len(reqs), i+1)
		}
		body := string(reqs[i].Body)
		for _, leak := range []string{"e2e-secret-4d2a", marker, testKey} {
			if strings.Contains(body, leak) {
				t.Errorf("run in %s: the request carries %q", tt.dir, leak)
			}
		}
		t.Logf("run in %s: %v; stderr:\n%s", tt.dir, took, res.stderr)
	}
}

// TestE2ERunImageFIFO: `agent run --image` on a FIFO is refused at once as
// bad usage, like any other unusable --image file, before any request.
func TestE2ERunImageFIFO(t *testing.T) {
	e, _ := imagesEnv(t)
	if err := syscall.Mkfifo(filepath.Join(e.work, "shot.png"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := e.run("", "run", "--model", "house-vl", "--image", "shot.png", "what is this?")
	took := time.Since(start)
	if res.code != 2 || !strings.Contains(res.stderr, "shot.png: not a regular file (a named pipe (FIFO))") {
		t.Errorf("exit %d, stderr %q; want 2 and the FIFO named", res.code, res.stderr)
	}
	if took > 5*time.Second {
		t.Errorf("the refusal took %v", took)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests made, want none", n)
	}
	t.Logf("refused in %v", took)
}
