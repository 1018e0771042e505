package loop

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ctxloop/agent/internal/storage"
)

// The harness's shared fixture: an empty database, created and migrated
// once per test binary, copied into each harness's data dir before
// storage.Open, which then finds its schema current and migrates nothing.
// Under -race, creating and migrating agent.db costs ≈ 200 ms against
// ≈ 15 ms for opening a current one, and the package makes hundreds of
// harnesses. The copy is what a first Open and Close leave (the schema,
// no rows, the WAL checkpointed into the file), so the tests see the same
// database.
var (
	emptyDBOnce sync.Once
	emptyDB     []byte
	emptyDBErr  error
)

// seedDataDir writes the empty, migrated database into dataDir (an
// existing directory) as storage.DBName, mode 0600 as Open creates it.
func seedDataDir(t testing.TB, dataDir string) {
	t.Helper()
	emptyDBOnce.Do(func() {
		dir, err := os.MkdirTemp("", "loop-emptydb-")
		if err != nil {
			emptyDBErr = err
			return
		}
		defer os.RemoveAll(dir)
		st, err := storage.Open(context.Background(), dir)
		if err != nil {
			emptyDBErr = err
			return
		}
		if err := st.Close(); err != nil {
			emptyDBErr = err
			return
		}
		emptyDB, emptyDBErr = os.ReadFile(filepath.Join(dir, storage.DBName))
	})
	if emptyDBErr != nil {
		t.Fatalf("the harness's empty database: %v", emptyDBErr)
	}
	if err := os.WriteFile(filepath.Join(dataDir, storage.DBName), emptyDB, 0o600); err != nil {
		t.Fatal(err)
	}
}
