// Package jobs keeps the background processes of a session: the commands
// bash started with background: true, which run on after their tool call
// returned until the model stops them (bash_kill), the user does (/jobs
// kill, Esc twice in the chat) or the session ends.
//
// The contract:
//
//   - A Table holds jobs under short ids (bg1, bg2, … in start order, never
//     reused within a table). Reserve refuses a new id once Max of them
//     run at once (a reserved id counts until Add or Release); a finished
//     job does not count, and stays in the table, with how
//     it ended, until it is removed (Kill), so its last output can still
//     be read.
//   - The table knows nothing of shells or output: a job's Process stops
//     its whole process group and says when it has exited; the job's
//     output is the caller's (package tools keeps it in a file, and only a
//     bash_output call brings it into the conversation).
//   - Kill and KillAll stop a job's process (returning once it has exited)
//     and remove it. KillAll is the session's end: the caller says what
//     was stopped.
//   - Changes delivers a signal after every start, end and removal; it is
//     lossy (one pending signal at most), for a display that re-reads List.
//
// A nil *Table has no jobs: Reserve and Get fail with ErrUnavailable and
// List is empty. A Table is safe for concurrent use.
package jobs

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultMax is how many jobs may run at once when Max is not set
// (bash.max_background).
const DefaultMax = 8

// ErrUnavailable is Add's error on a nil table.
var ErrUnavailable = errors.New("background processes are not available here")

// Process is a job's running process, as the table needs it.
type Process interface {
	// Stop stops the process and everything it started (its group) and
	// returns once it has exited. It may be called more than once.
	Stop()
	// Done is closed once the process has exited and its output is read.
	Done() <-chan struct{}
	// Status says how the process ended ("exit code 0", "killed by
	// SIGTERM"); it is read only after Done is closed.
	Status() string
}

// Job is one background process.
type Job struct {
	ID      string
	Command string
	Started time.Time
	Process Process
	// Data is the caller's (the output log of package tools).
	Data any
}

// Running reports whether the job's process has not exited.
func (j *Job) Running() bool {
	select {
	case <-j.Process.Done():
		return false
	default:
		return true
	}
}

// State is "running" or how the job ended.
func (j *Job) State() string {
	if j.Running() {
		return "running"
	}
	return "exited: " + j.Process.Status()
}

// Table is a session's background processes.
type Table struct {
	// Max is how many jobs may run at once; 0 means DefaultMax.
	Max int

	mu      sync.Mutex
	seq     int
	jobs    map[string]*Job
	changes chan struct{}
}

// New returns a table that runs at most max jobs at once (0: DefaultMax).
func New(max int) *Table { return &Table{Max: max} }

func (t *Table) max() int {
	if t.Max <= 0 {
		return DefaultMax
	}
	return t.Max
}

// Reserve takes the next id if fewer than Max jobs run, before the
// process is started; the caller then calls Add with it, or Release if the
// start failed. The error names the running jobs.
func (t *Table) Reserve() (string, error) {
	if t == nil {
		return "", ErrUnavailable
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.jobs == nil {
		t.jobs = map[string]*Job{}
	}
	running := 0
	for _, j := range t.jobs {
		if j.Process == nil || j.Running() {
			running++
		}
	}
	if running >= t.max() {
		return "", fmt.Errorf("%d background processes run already, the most allowed (bash.max_background); stop one with bash_kill first (%s)", running, describe(t.sortedLocked()))
	}
	t.seq++
	id := fmt.Sprintf("bg%d", t.seq)
	t.jobs[id] = &Job{ID: id} // a placeholder: counts as running until Add or Release
	return id, nil
}

// Release gives back an id Reserve returned whose process did not start.
func (t *Table) Release(id string) {
	t.mu.Lock()
	delete(t.jobs, id)
	t.mu.Unlock()
}

// Add records the job j under the id Reserve gave (j.ID) and watches its
// process's end.
func (t *Table) Add(j *Job) {
	t.mu.Lock()
	t.jobs[j.ID] = j
	t.mu.Unlock()
	t.notify()
	go func() {
		<-j.Process.Done()
		t.notify()
	}()
}

// Get returns the job called id; an unknown id's error lists the jobs
// there are.
func (t *Table) Get(id string) (*Job, error) {
	if t == nil {
		return nil, ErrUnavailable
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	j, ok := t.jobs[strings.TrimSpace(id)]
	if !ok || j.Process == nil {
		return nil, fmt.Errorf("no background process %q: %s", id, describe(t.sortedLocked()))
	}
	return j, nil
}

// List returns the jobs in start order.
func (t *Table) List() []*Job {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sortedLocked()
}

// Running counts the jobs whose process runs.
func (t *Table) Running() int {
	n := 0
	for _, j := range t.List() {
		if j.Running() {
			n++
		}
	}
	return n
}

// Kill stops the job called id and removes it from the table.
func (t *Table) Kill(id string) (*Job, error) {
	j, err := t.Get(id)
	if err != nil {
		return nil, err
	}
	j.Process.Stop()
	t.mu.Lock()
	delete(t.jobs, j.ID)
	t.mu.Unlock()
	t.notify()
	return j, nil
}

// KillAll stops every job and empties the table. It returns the jobs that
// were still running, in start order.
func (t *Table) KillAll() []*Job {
	var running []*Job
	for _, j := range t.List() {
		if j.Running() {
			running = append(running, j)
		}
	}
	var wg sync.WaitGroup
	for _, j := range running {
		wg.Add(1)
		go func() { defer wg.Done(); j.Process.Stop() }()
	}
	wg.Wait()
	if t != nil {
		t.mu.Lock()
		for id, j := range t.jobs {
			if j.Process != nil {
				delete(t.jobs, id)
			}
		}
		t.mu.Unlock()
		t.notify()
	}
	return running
}

// Changes returns the channel that signals a change of the table (see
// the package comment).
func (t *Table) Changes() <-chan struct{} {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.changes == nil {
		t.changes = make(chan struct{}, 1)
	}
	return t.changes
}

func (t *Table) notify() {
	t.mu.Lock()
	ch := t.changes
	t.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (t *Table) sortedLocked() []*Job {
	out := make([]*Job, 0, len(t.jobs))
	for _, j := range t.jobs {
		if j.Process != nil {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool { return idNumber(out[a].ID) < idNumber(out[b].ID) })
	return out
}

func idNumber(id string) int {
	var n int
	fmt.Sscanf(id, "bg%d", &n)
	return n
}

// describe lists jobs for an error message: "bg1 (running: npm run dev),
// bg2 (exited: exit code 0: make)", or says there are none.
func describe(jobs []*Job) string {
	if len(jobs) == 0 {
		return "there are no background processes"
	}
	parts := make([]string, len(jobs))
	for i, j := range jobs {
		parts[i] = fmt.Sprintf("%s (%s: %s)", j.ID, j.State(), oneLine(j.Command, 60))
	}
	return "the background processes are " + strings.Join(parts, ", ")
}

func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + "…"
	}
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}
