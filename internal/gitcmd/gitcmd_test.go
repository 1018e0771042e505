package gitcmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hostileRepo makes a committed repository whose configuration would run
// commands from git status: a core.fsmonitor hook, a post-index-change
// hook and a clean filter on a stat-dirty file. Each writes a marker file
// (with its environment) into the returned markers directory.
func hostileRepo(t *testing.T) (repo, markers string) {
	t.Helper()
	return hostileRepoFilter(t, "x")
}

// hostileRepoFilter is hostileRepo with the clean filter's driver named
// driver (which may be empty: `filter=` selects the driver "").
func hostileRepoFilter(t *testing.T, driver string) (repo, markers string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo, markers = t.TempDir(), t.TempDir()
	script := func(name string) string {
		path := filepath.Join(markers, name+".sh")
		body := "#!/bin/sh\nenv > " + filepath.Join(markers, name+".ran") + "\ncat\n"
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, ".gitattributes"), []byte("*.dat filter="+driver+"\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "a.dat"), []byte("data\n"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "init")
	// Only now arm the repository, as a hostile model writing .git/config
	// would.
	hooks := filepath.Join(repo, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	hook := script("hook")
	os.Rename(hook, filepath.Join(hooks, "post-index-change"))
	git("config", "core.fsmonitor", script("fsmonitor"))
	git("config", "filter."+driver+".clean", script("clean"))
	git("config", "filter."+driver+".process", script("process"))
	git("config", "filter."+driver+".required", "true")
	git("config", "status.submoduleSummary", "true")
	// A stat-dirty file: git status must hash it again, through its
	// clean filter.
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(repo, "a.dat"), future, future)
	return repo, markers
}

func ranMarkers(t *testing.T, markers string) []string {
	t.Helper()
	ran, _ := filepath.Glob(filepath.Join(markers, "*.ran"))
	return ran
}

func TestStatusRunsNothingFromTheRepository(t *testing.T) {
	repo, markers := hostileRepo(t)
	// A home of its own, so that the drivers are known without git
	// (configfile.go) whatever the user's global configuration.
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	if _, known := knownFilterKeys(repo, environ(os.Environ())); !known && (runtime.GOOS == "linux" || runtime.GOOS == "darwin") {
		t.Fatal("the drivers are not known without git: this test would not exercise configfile.go")
	}
	statusRunsNothing(t, repo, markers)
}

// The driver named "" (`filter=` in .gitattributes, [filter ""] in the
// configuration) runs like any other.
func TestStatusRunsNoFilterWithAnEmptyName(t *testing.T) {
	repo, markers := hostileRepoFilter(t, "")
	statusRunsNothing(t, repo, markers)
}

// The same repository with an include in its configuration: the filter
// drivers are then listed by git (configfile.go does not follow includes),
// and nothing runs either. The driver is also named in the legacy form
// with capitals, in the included file.
func TestStatusRunsNothingWhenGitListsTheFilters(t *testing.T) {
	repo, markers := hostileRepo(t)
	config := filepath.Join(repo, ".git", "config")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	included := filepath.Join(t.TempDir(), "included")
	clean := strings.Replace(string(data), "[filter \"x\"]", "[Filter.X]", 1)
	os.WriteFile(included, []byte(clean), 0o644)
	os.WriteFile(config, []byte("[include]\n\tpath = "+included+"\n"), 0o644)
	if _, known := knownFilterKeys(repo, environ(os.Environ())); known {
		t.Fatal("the drivers are known without git: this test would not exercise git's listing")
	}
	statusRunsNothing(t, repo, markers)
}

func statusRunsNothing(t *testing.T, repo, markers string) {
	t.Helper()
	index := filepath.Join(repo, ".git", "index")
	before, _ := os.ReadFile(index)
	beforeInfo, _ := os.Stat(index)

	t.Setenv("OPENAI_API_KEY", "sk-gitcmd-secret-0123456789")
	out, err := Output(context.Background(), repo, "status", "--short", "--branch")
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if !strings.HasPrefix(string(out), "## main") {
		t.Errorf("status = %q, want the branch line", out)
	}
	if ran := ranMarkers(t, markers); len(ran) > 0 {
		t.Errorf("the repository's configuration ran: %v", ran)
	}
	after, _ := os.ReadFile(index)
	afterInfo, _ := os.Stat(index)
	if !bytes.Equal(before, after) || !beforeInfo.ModTime().Equal(afterInfo.ModTime()) {
		t.Errorf(".git/index changed (mtime %v → %v)", beforeInfo.ModTime(), afterInfo.ModTime())
	}

	// The repository is armed indeed: a plain git status runs its commands
	// (and rewrites the index), so the assertions above can fail.
	plain := exec.Command("git", "status", "--short")
	plain.Dir = repo
	plain.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	plain.Run()
	ran := ranMarkers(t, markers)
	if len(ran) == 0 {
		t.Fatal("a plain git status ran none of the repository's commands: the test proves nothing")
	}
	for _, r := range ran {
		t.Logf("plain git status ran %s", filepath.Base(r))
	}
}

func TestEnvironHasNoSecretsAndNoGitOverrides(t *testing.T) {
	env := environ([]string{
		"PATH=/bin", "HOME=/home/u", "OPENAI_API_KEY=sk-x-0123456789", "MY_TOKEN=abc",
		"GIT_DIR=/elsewhere", "GIT_EXTERNAL_DIFF=evil", "GIT_CONFIG_PARAMETERS='core.fsmonitor'='evil'",
		"LANG=C.UTF-8", "LC_ALL=C",
	})
	got := strings.Join(env, "\n")
	for _, bad := range []string{"OPENAI_API_KEY", "MY_TOKEN", "GIT_DIR", "GIT_EXTERNAL_DIFF", "evil"} {
		if strings.Contains(got, bad) {
			t.Errorf("environment keeps %s:\n%s", bad, got)
		}
	}
	for _, want := range []string{"PATH=/bin", "HOME=/home/u", "LANG=C.UTF-8", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0"} {
		if !strings.Contains(got, want) {
			t.Errorf("environment lacks %s:\n%s", want, got)
		}
	}
}

func TestFilterOverrides(t *testing.T) {
	got := filterOverrides("filter.x.clean\nfilter.x.process\nfilter.lfs.required\nfilter.a.b.smudge\nfilter.x.clean\nfilter.clean\nfilter..clean\n")
	want := []string{
		"filter.x.clean=", "filter.x.smudge=", "filter.x.process=", "filter.x.required=false",
		"filter.lfs.clean=", "filter.lfs.smudge=", "filter.lfs.process=", "filter.lfs.required=false",
		"filter.a.b.clean=", "filter.a.b.smudge=", "filter.a.b.process=", "filter.a.b.required=false",
		"filter..clean=", "filter..smudge=", "filter..process=", "filter..required=false",
	}
	var flat []string
	for _, kv := range got {
		flat = append(flat, kv[0]+"="+kv[1])
	}
	if strings.Join(flat, " ") != strings.Join(want, " ") {
		t.Errorf("overrides = %v\nwant %v", flat, want)
	}
}

func TestOutsideARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	if _, err := Output(context.Background(), t.TempDir(), "status", "--short"); err == nil {
		t.Error("status outside a repository succeeded")
	}
}

// BenchmarkStatus measures the hardened status of the system prompt: in a
// plain repository one git process (the filter drivers' names are read
// from the files, configfile.go); two where git must list them.
func BenchmarkStatus(b *testing.B) {
	repo := b.TempDir()
	cmd := exec.Command("git", "init", "-q", repo)
	if err := cmd.Run(); err != nil {
		b.Skip("git not usable")
	}
	for b.Loop() {
		if _, err := Output(context.Background(), repo, "status", "--short", "--branch", "--ignore-submodules=dirty"); err != nil {
			b.Fatal(err)
		}
	}
}
