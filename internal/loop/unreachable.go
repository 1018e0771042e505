package loop

// Remembering an unreachable small_model. small_model writes titles and
// first summaries; when the provider cannot serve it — the model is
// unknown (404), the key is refused for it, the server cannot be reached
// or never answers — every new process would ask again and wait for the
// same failure. So such a failure is written to unreachableFile in the
// data directory (keyed by base URL and model, with the time), and for
// unreachableFor after it no title is asked of that model and summaries
// go to the main model at once. A later success, or a mark older than
// unreachableFor, forgets it. The file is small JSON, rewritten whole
// (write to a temporary file, rename); two processes writing at once
// lose at most one mark, which only costs one more failed request.

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/provider"
	"github.com/ctxloop/agent/internal/safefile"
)

// unreachableFile is the file in the data directory that remembers
// unreachable small models.
const unreachableFile = "unreachable_models.json"

// maxUnreachableFileBytes bounds the read of unreachableFile: it holds a
// few marks, so anything larger is not one the agent wrote.
const maxUnreachableFileBytes = 64 << 10

// unreachableFor is how long a model stays remembered unreachable.
const unreachableFor = 10 * time.Minute

// unreachableMark is one remembered failure.
type unreachableMark struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// unreachableModels reads and writes unreachableFile of a data directory;
// the zero value (no directory) remembers nothing.
type unreachableModels struct {
	dir     string
	baseURL string
}

// smallModelMarks are the marks of cfg's data directory and endpoint.
func smallModelMarks(cfg *config.Config) unreachableModels {
	return unreachableModels{dir: cfg.DataDir, baseURL: cfg.BaseURL}
}

func (u unreachableModels) path() string { return filepath.Join(u.dir, unreachableFile) }

func (u unreachableModels) key(model string) string { return u.baseURL + " " + model }

func (u unreachableModels) read() map[string]unreachableMark {
	marks := map[string]unreachableMark{}
	if u.dir == "" {
		return marks
	}
	// safefile: a FIFO, a device or a huge file put in its place must not
	// hang or grow the process; it remembers nothing, like a damaged file.
	if b, err := safefile.Read(context.Background(), u.path(), u.dir, maxUnreachableFileBytes); err == nil {
		_ = json.Unmarshal(b, &marks) // a damaged file remembers nothing
	}
	return marks
}

func (u unreachableModels) write(marks map[string]unreachableMark) {
	if u.dir == "" {
		return
	}
	b, err := json.MarshalIndent(marks, "", "  ")
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(u.dir, unreachableFile+".*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), u.path()) != nil {
		os.Remove(tmp.Name())
	}
}

// Unreachable reports whether model was marked unreachable less than
// unreachableFor before now.
func (u unreachableModels) Unreachable(model string, now time.Time) bool {
	m, ok := u.read()[u.key(model)]
	return ok && now.Sub(m.At) < unreachableFor && !m.At.After(now.Add(time.Minute))
}

// Observe records the outcome of a request to model: a failure that
// will not go away by itself (modelUnreachable) marks it, a success
// forgets a mark.
func (u unreachableModels) Observe(model string, err error, now time.Time) {
	marks := u.read()
	_, marked := marks[u.key(model)]
	switch {
	case err == nil && marked:
		delete(marks, u.key(model))
	case err != nil && modelUnreachable(err):
		marks[u.key(model)] = unreachableMark{At: now, Reason: provider.Classify(err).Error()}
	default:
		return
	}
	u.write(marks)
}

// modelUnreachable reports whether err says the model cannot be served
// at all: unknown model, refused key, no server, or no answer.
func modelUnreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &dns) || errors.As(err, &op) && op.Op == "dial" ||
		errors.Is(err, provider.ErrIdleTimeout) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	switch provider.Classify(err).Class {
	case provider.ClassNotFound, provider.ClassAuth:
		return true
	}
	return false
}
