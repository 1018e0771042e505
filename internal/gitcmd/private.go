package gitcmd

// private.go: the second entry point, for a repository the agent owns (the
// snapshot store). Its commands write — objects, refs, a private index —
// but only inside GitDir and IndexFile: the work tree is read (and written
// only by the caller's own code, never by git), and the user's repository,
// if the work tree has one, is never opened: GIT_DIR names the private
// store, so the user's .git (config, hooks, index, refs) is not read at all.
//
// The guarantees of the package comment hold here too: the hardening
// configuration and the allowlisted environment, plus
//
//   - GIT_CONFIG_GLOBAL=/dev/null: no setting of the user's ~/.gitconfig
//     applies (a global core.autocrlf would change the bytes stored, a
//     filter driver would run). The one setting the store wants from it,
//     core.excludesFile, is read once by UserExcludesFile through the
//     read-only entry point and passed on the command line.
//   - byte-exact storage: core.autocrlf=false, core.safecrlf=false,
//     core.fileMode=true, core.symlinks=true; the store's info/attributes
//     (written by the caller) unsets text, eol, ident, filter and
//     working-tree-encoding, and outranks the work tree's .gitattributes.
//   - GIT_LITERAL_PATHSPECS=1: a path is a path, never a pattern.
//   - a fixed author and committer, so commit-tree needs no identity.
//
// The work tree's .gitignore files are read natively (the store has a work
// tree), with the store's own info/exclude and the user's excludes file.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Private runs git on a private repository: GitDir is the store, WorkTree
// the directory it snapshots, IndexFile the store's own index. The zero
// ExcludesFile means none beyond git's default ($XDG_CONFIG_HOME/git/ignore).
type Private struct {
	GitDir       string
	WorkTree     string
	IndexFile    string
	ExcludesFile string
	// Borrow is an object directory (the user's .git/objects) that git
	// reads through GIT_ALTERNATE_OBJECT_DIRECTORIES but never writes:
	// it is given to every command except those that write objects
	// (objectWriters), because git "freshens" — touches the mtime of — an
	// alternate's object that it would otherwise write again.
	Borrow string
}

// objectWriters are the commands that write objects; they run without
// Borrow (write-tree then needs --missing-ok for a borrowed blob).
var objectWriters = map[string]bool{
	"update-index": true, "write-tree": true, "hash-object": true,
	"commit-tree": true, "mktree": true,
}

// privateConfig is given on the command line after the hardening.
var privateConfig = []string{
	"-c", "core.autocrlf=false",
	"-c", "core.safecrlf=false",
	"-c", "core.fileMode=true",
	"-c", "core.symlinks=true",
	"-c", "core.logAllRefUpdates=false",
	"-c", "core.quotePath=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "advice.detachedHead=false",
	"-c", "color.ui=false",
}

// Command returns the hardened command for args, run in the work tree. The
// caller may set Stdin, Stdout and Stderr; it must not change Env or Args.
func (p Private) Command(ctx context.Context, args ...string) *exec.Cmd {
	full := append(append([]string{}, hardening...), privateConfig...)
	if p.ExcludesFile != "" {
		full = append(full, "-c", "core.excludesFile="+p.ExcludesFile)
	}
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	cmd.Dir = p.WorkTree
	cmd.Env = p.environ(os.Environ())
	if p.Borrow != "" && len(args) > 0 && !objectWriters[args[0]] {
		cmd.Env = append(cmd.Env, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+p.Borrow)
	}
	return cmd
}

func (p Private) environ(env []string) []string {
	return append(environ(env),
		"GIT_DIR="+p.GitDir,
		"GIT_WORK_TREE="+p.WorkTree,
		"GIT_INDEX_FILE="+p.IndexFile,
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_LITERAL_PATHSPECS=1",
		"GIT_NO_REPLACE_OBJECTS=1",
		"GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@localhost",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@localhost",
	)
}

// Output runs git with args, stdin (which may be nil) on its standard
// input, and returns its standard output. A failure includes the first
// line of git's standard error.
func (p Private) Output(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := p.Command(ctx, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, p.wrap(args, err, stderr.String())
	}
	return out, nil
}

// Stream runs git with args and hands its standard output to read, which
// may stop early: the command is then killed and its exit ignored.
func (p Private) Stream(ctx context.Context, read func(io.Reader) error, args ...string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := p.Command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return p.wrap(args, err, "")
	}
	if err := cmd.Start(); err != nil {
		return p.wrap(args, err, "")
	}
	readErr := read(out)
	if readErr != nil {
		cancel()
		cmd.Wait()
		return readErr
	}
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return p.wrap(args, err, stderr.String())
	}
	return nil
}

func (p Private) wrap(args []string, err error, stderr string) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// The first line says what failed, the last (git's "fatal:")
		// often names the path.
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		msg := lines[0]
		if last := lines[len(lines)-1]; len(lines) > 1 {
			msg += " … " + last
		}
		if msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
	}
	return fmt.Errorf("git %s (store %s): %w", strings.Join(args, " "), p.GitDir, err)
}
