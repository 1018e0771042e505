package loop

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/storage"
)

// TestOneStepTurnCommitBudget: a one-step turn in a git repository writes
// its session through a bounded number of SQLite transactions (each one a
// commit appended to the WAL: pages written again, CPU in the driver, and
// at close more for the checkpoint to copy). The records written after
// the turn — the system prompt's count and the session's starting git
// status — are one transaction, not one each (issue 36 item 6: `agent run`
// spends them between the answer and its exit), and so are the assistant
// message and its step-start part, written while the request goes out.
func TestOneStepTurnCommitBudget(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, _ *config.Config) {
		o.Environment = &PendingEnvironment{dir: o.Dir, began: time.Now(), done: make(chan struct{}),
			env: Environment{Dir: o.Dir, Date: time.Now(), GitStatus: "## main"}}
		close(o.Environment.done)
	}, pt.Text("Hello there."))
	wal := filepath.Join(h.data, storage.DBName+"-wal")
	before := walCommits(t, wal)
	if res := h.turn("hi"); res.Err != nil {
		t.Fatal(res.Err)
	}
	// The records after the turn are written by the loop before the turn
	// is reported done.
	kinds := map[string]bool{}
	rows, err := h.store.ListEventLog(context.Background(), h.r.Session().ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		kinds[r.Kind] = true
	}
	if !kinds[systemTokensKind] || !kinds[gitStartKind] {
		t.Fatalf("event log kinds %v, want %s and %s", kinds, systemTokensKind, gitStartKind)
	}
	// Today's budget: the session with its first message (1), the
	// assistant message with its step-start part (1), the text part made
	// and finished (2), the request's estimate (1), the step-finish part
	// (1), the message's two updates (2), the usage (1), the records after
	// the turn (1).
	const budget = 10
	if n := walCommits(t, wal) - before; n > budget {
		t.Errorf("a one-step turn committed %d transactions, want at most %d", n, budget)
	}
}

// walCommits counts the commit frames of the WAL at path: the frames,
// after the 32-byte header, whose salts match the header's and whose
// "database size after commit" field is set. It stops at the first frame
// of another generation (stale frames after a restart).
func walCommits(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 32 {
		return 0
	}
	pageSize := int(binary.BigEndian.Uint32(b[8:12]))
	salt1, salt2 := binary.BigEndian.Uint32(b[16:20]), binary.BigEndian.Uint32(b[20:24])
	n := 0
	for off := 32; off+24+pageSize <= len(b); off += 24 + pageSize {
		f := b[off : off+24]
		if binary.BigEndian.Uint32(f[8:12]) != salt1 || binary.BigEndian.Uint32(f[12:16]) != salt2 {
			break
		}
		if binary.BigEndian.Uint32(f[4:8]) != 0 {
			n++
		}
	}
	return n
}
