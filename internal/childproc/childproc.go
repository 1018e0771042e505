// Package childproc starts the agent's long-lived helper processes — hook
// commands and MCP stdio servers — so that none of them outlives the
// agent, even one killed with SIGKILL. (Tool commands follow the same
// rules through their own code in package tools: their groups are
// recorded with their parts in the database.)
//
// The contract:
//
//   - Start runs cmd.Start on one OS thread locked for the life of the
//     process, the spawner. The child leads a process group of its own and
//     has SIGKILL as its parent-death signal. Linux sends that signal when
//     the thread that forked the child ends: the spawner's ends only with
//     the process, so the signal means the agent died and nothing else
//     (a child forked from an ordinary Go thread would be killed whenever
//     the runtime retires that thread). The spawner's bounding set lacks
//     CAP_SYS_PTRACE (procguard.DropPtraceForChildren): a child cannot
//     read the agent's memory.
//   - The signal reaches the group's leader only. What the leader started
//     (a hook's background job, the node process of an npx server) may
//     survive a crash, so while a child runs, Registry keeps a record of
//     its group in a file of its directory (one per child: started by
//     Start, removed by the release func). Reap, run by the next agent to
//     start, stops each recorded group whose agent is gone and removes the
//     record. A record names its agent by pid and start time: the groups
//     of a live agent (another terminal) are never touched, and
//     tools.StopProcessGroup's checks against a reused group id apply.
//
// A nil *Registry starts children the same way and records nothing.
// Elsewhere than Linux, Start is cmd.Start and nothing is recorded.
package childproc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/tools"
)

// SpawnerFunc names the function of the spawner's goroutine, which runs as
// long as the process once a child was started: leak checks ignore it
// (goleak.IgnoreTopFunction).
const SpawnerFunc = "github.com/ctxloop/agent/internal/childproc.spawner"

// Registry records the process groups of the children this agent started,
// in a directory shared by the agents of one data directory.
type Registry struct {
	dir string
}

// Open returns the registry kept in dir (created on the first record).
func Open(dir string) *Registry { return &Registry{dir: dir} }

// record is one file of the registry.
type record struct {
	// Owner is the agent that started the child: its pid (in PGID), its
	// start time and the boot.
	Owner tools.ProcessGroup `json:"owner"`
	Group tools.ProcessGroup `json:"group"`
	// Command names the child, for a person reading the directory.
	Command string `json:"command,omitempty"`
}

// Start starts cmd as the package comment says and, when r is not nil,
// records its process group. Call release once cmd.Wait has returned (it
// is never nil, and does nothing when nothing was recorded).
func (r *Registry) Start(cmd *exec.Cmd) (release func(), err error) {
	if err := start(cmd); err != nil {
		return func() {}, err
	}
	if r == nil || !recordable {
		return func() {}, nil
	}
	// A failed record is not the start's failure: the child runs and
	// dies with the agent all the same; only a crash's leftovers would
	// go unreaped.
	return r.Record(tools.DescribeGroup(cmd.Process.Pid), filepath.Base(cmd.Path)), nil
}

// Record records g, a process group started elsewhere (the bash of a
// !command), until release is called; command names it. It does nothing
// for a nil r or a group not described (g.StartTicks 0).
func (r *Registry) Record(g tools.ProcessGroup, command string) (release func()) {
	if r == nil || !recordable {
		return func() {}
	}
	path, err := r.write(g, command)
	if err != nil {
		return func() {}
	}
	return func() { os.Remove(path) }
}

func (r *Registry) write(g tools.ProcessGroup, command string) (string, error) {
	if g.PGID <= 1 || g.StartTicks == 0 {
		return "", errors.New("the group is not described")
	}
	rec := record{Owner: self(), Group: g, Command: command}
	b, err := json.Marshal(rec)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(r.dir, fmt.Sprintf("%d-%d.json", rec.Owner.PGID, g.PGID))
	return path, os.WriteFile(path, b, 0o600)
}

// Reap stops the recorded groups of agents that are gone and removes
// their records; a record that cannot be read is removed too. It returns
// what failed; nothing of it is fatal.
func (r *Registry) Reap() []error {
	if r == nil || !recordable {
		return nil
	}
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return nil // no directory: nothing was ever recorded
	}
	var errs []error
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(r.dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var rec record
		if json.Unmarshal(b, &rec) != nil {
			os.Remove(path)
			continue
		}
		if alive(rec.Owner) {
			continue
		}
		if _, err := tools.StopProcessGroup(rec.Group); err != nil {
			errs = append(errs, fmt.Errorf("reap %s (group %d): %w", rec.Command, rec.Group.PGID, err))
			continue
		}
		os.Remove(path)
	}
	return errs
}

var (
	selfOnce sync.Once
	selfDesc tools.ProcessGroup
)

// self describes this agent as a record's owner.
func self() tools.ProcessGroup {
	selfOnce.Do(func() { selfDesc = tools.DescribeGroup(os.Getpid()) })
	return selfDesc
}

// alive reports whether the agent described by owner still runs.
func alive(owner tools.ProcessGroup) bool {
	if owner.PGID <= 0 || owner.StartTicks == 0 {
		return false
	}
	now := tools.DescribeGroup(owner.PGID)
	if owner.BootID != "" && now.BootID != "" && owner.BootID != now.BootID {
		return false
	}
	return now.StartTicks == owner.StartTicks
}
