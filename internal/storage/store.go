// Package storage persists conversations in one SQLite database, agent.db
// in the data dir: sessions, messages, the parts messages are made of, the
// queue of user input typed while the agent is busy, session leases (which
// process drives a session) and an event log for the inspector. It owns all
// SQL, the migrations and the transactions, and publishes a change event
// for every write it makes.
//
// Contract:
//   - One writer connection per Store: writes are serialised in-process;
//     another process's write lock is waited for up to 5 s, then reported
//     as ErrLocked. Reads use a separate pool and never wait for writers
//     (WAL), but for those a session's open and its runner make (openreads.go,
//     ListQueueLatest, Memories, the event log): through the writer
//     connection, they wait for this process's write in progress, not for
//     another process's.
//   - Parts are written when they change (immediate persistence). Streamed
//     text is the exception: a TextStream buffers deltas and flushes them at
//     least every FlushInterval and at every boundary, as append-only delta
//     rows, and writes the final text once.
//   - Events are published after the write commits: state changes are
//     must-deliver, text deltas lossy.
//   - A Store from OpenReadOnly never writes: its write methods return
//     ErrReadOnly.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/pubsub"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DBName is the file name of the database inside the data dir.
const DBName = "agent.db"

// busyTimeout is how long a write waits for another process's write lock
// before failing with ErrLocked. A variable so tests can shorten it.
var busyTimeout = 5 * time.Second

// Errors callers can test for with errors.Is. Each is wrapped with the
// operation and what it concerned.
var (
	// ErrNotFound is returned when a session, message, part or queued
	// message does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguousID is returned when an id prefix matches several sessions.
	ErrAmbiguousID = errors.New("ambiguous id prefix")
	// ErrSessionBusy is returned when another live process holds the
	// session's lease.
	ErrSessionBusy = errors.New("session is busy")
	// ErrLocked is returned when another process kept the database locked
	// for longer than the busy timeout.
	ErrLocked = errors.New("database is locked")
	// ErrReadOnly is returned by the write methods of a read-only Store.
	ErrReadOnly = errors.New("store is read-only")
	// ErrNoDatabase is returned by OpenReadOnly when agent.db does not exist.
	ErrNoDatabase = errors.New("no database")
	// ErrNewerSchema is returned when agent.db was written by a newer agent.
	ErrNewerSchema = errors.New("database schema is newer than this agent")
	// ErrOlderSchema is returned by OpenReadOnly when agent.db has not been
	// upgraded to this agent's schema yet (a read-write open upgrades it).
	ErrOlderSchema = errors.New("database schema is older than this agent")
)

// Store is the database of one data dir. Its methods are safe for
// concurrent use.
type Store struct {
	path     string
	readOnly bool
	db       *sql.DB // the one writer connection; nil when read-only
	rdb      *sql.DB // readers
	events   *pubsub.Broker[message.Event]

	upsertPartStmt *sql.Stmt

	// windowsThroughWriter: a session's window is read through the
	// writer (openreads.go, Window.ThroughWriter).
	windowsThroughWriter atomic.Bool

	mu      sync.Mutex
	closed  bool
	streams map[*TextStream]struct{}
	leases  map[*Lease]struct{}
}

// Open opens the database in dataDir for reading and writing, creating the
// directory (0700) and agent.db (0600) if needed and migrating the schema
// forward.
func Open(ctx context.Context, dataDir string) (*Store, error) {
	dir, err := prepareDataDir(dataDir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, DBName)
	if err := createDBFile(dir, path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", connString(path, false))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := newStore(path, false)
	s.db = db
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, s.fail("open "+path, err)
	}
	if err := keepWAL(ctx, db); err != nil {
		db.Close()
		return nil, s.fail("open "+path, err)
	}
	if err := restrictFiles(path); err != nil {
		db.Close()
		return nil, err
	}
	s.rdb, err = openReaders(path, false, false)
	if err != nil {
		db.Close()
		return nil, err
	}
	if s.upsertPartStmt, err = db.PrepareContext(ctx, upsertPartSQL); err != nil {
		s.rdb.Close()
		db.Close()
		return nil, s.fail("open "+path, err)
	}
	return s, nil
}

// OpenReadOnly opens the database in dataDir for reading only (SQLite
// mode=ro and query_only): nothing is migrated, repaired or written, and
// every write method returns ErrReadOnly. It fails with ErrNoDatabase when
// agent.db does not exist (creating nothing) and with ErrNewerSchema or
// ErrOlderSchema when the schema is not this agent's. It works while other
// processes have the database open for writing. (When no other process has
// it open, SQLite itself may create the empty agent.db-wal and -shm files a
// WAL database needs for reading, with agent.db's mode.)
//
// Where writing is impossible — a read-only file system, a directory or an
// agent.db this user cannot write — and those files are not there, SQLite
// could not create them (or would leave them unwritable for the owner's
// next writer), so the database is opened immutable instead: no locks, no
// WAL; no writer can be at work on it then.
func OpenReadOnly(ctx context.Context, dataDir string) (*Store, error) {
	if dataDir == "" {
		return nil, errors.New("open store read-only: no data dir given")
	}
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("open store read-only: data dir %s: %w", dataDir, err)
	}
	path := filepath.Join(dir, DBName)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("open %s read-only: %w (nothing has been recorded in %s yet)", path, ErrNoDatabase, dir)
		}
		return nil, fmt.Errorf("open %s read-only: %w", path, err)
	}
	rdb, err := openReaders(path, true, readImmutable(writable(dir), writable(path), exists(path+"-wal") && exists(path+"-shm")))
	if err != nil {
		return nil, err
	}
	s := newStore(path, true)
	s.rdb = rdb
	var version int
	if err := rdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		rdb.Close()
		return nil, s.fail("open "+path+" read-only", err)
	}
	if known := latestVersion(); version != known {
		rdb.Close()
		return nil, fmt.Errorf("open %s read-only: %w", path, &schemaError{found: version, known: known})
	}
	return s, nil
}

func newStore(path string, readOnly bool) *Store {
	return &Store{
		path:     path,
		readOnly: readOnly,
		events:   pubsub.New[message.Event](),
		streams:  make(map[*TextStream]struct{}),
		leases:   make(map[*Lease]struct{}),
	}
}

// Close flushes the text streams still open (their parts stay unfinished
// and are completed by RepairSession), releases the leases this Store
// holds, closes the event broker and the database.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	streams := make([]*TextStream, 0, len(s.streams))
	for t := range s.streams {
		streams = append(streams, t)
	}
	leases := make([]*Lease, 0, len(s.leases))
	for l := range s.leases {
		leases = append(leases, l)
	}
	s.mu.Unlock()

	var errs []error
	ctx, cancel := context.WithTimeout(context.Background(), 2*busyTimeout)
	defer cancel()
	for _, t := range streams {
		errs = append(errs, t.close(ctx))
	}
	for _, l := range leases {
		errs = append(errs, l.Release())
	}
	s.events.Close()
	if s.upsertPartStmt != nil {
		errs = append(errs, s.upsertPartStmt.Close())
	}
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	if s.db != nil {
		errs = append(errs, s.db.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close %s: %w", s.path, err)
	}
	return nil
}

// Path returns the path of agent.db.
func (s *Store) Path() string { return s.path }

// ReadOnly reports whether the Store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Events returns the broker on which every write is announced.
func (s *Store) Events() *pubsub.Broker[message.Event] { return s.events }

// Publish announces an event that is not a row (status, retrying, pruned,
// compacted, error) to the same subscribers, must-deliver.
func (s *Store) Publish(ev message.Event) { s.events.Publish(ev) }

// writable returns ErrReadOnly, wrapped with op, for a read-only Store.
func (s *Store) writable(op string) error {
	if s.readOnly {
		return fmt.Errorf("%s: %w (%s)", op, ErrReadOnly, s.path)
	}
	return nil
}

// fail wraps err with op, and turns SQLite's busy errors into ErrLocked
// with an explanation.
func (s *Store) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if isBusy(err) {
		return fmt.Errorf("%s: %w: another process kept %s locked for more than %v", op, ErrLocked, s.path, busyTimeout)
	}
	return fmt.Errorf("%s: %w", op, err)
}

func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// connString builds the DSN of a connection: a file: URI with the pragmas
// every connection needs.
func connString(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	if readOnly {
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "foreign_keys(1)")
		// With the WAL kept at close (keepWAL), a limit makes the last
		// close truncate it to nothing, and bounds it after a checkpoint.
		q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
		// Every transaction takes the write lock at BEGIN, so a busy
		// database is waited for there rather than failing mid-way.
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: q.Encode()}
	return u.String()
}

// walSizeLimit bounds the WAL file once checkpointed (PRAGMA
// journal_size_limit).
const walSizeLimit = 4 << 20

// keepWAL makes the writing connection leave the WAL and its index in place
// when it closes last (SQLITE_FCNTL_PERSIST_WAL), emptied by the final
// checkpoint. SQLite deletes them otherwise, and every process creates them
// again at its first write: two inode allocations and a directory sync per
// `agent run`, which on ext4 cost a start-up more than a millisecond.
func keepWAL(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		fc, ok := dc.(interface {
			FileControlPersistWAL(dbName string, mode int) (int, error)
		})
		if !ok {
			return nil // another driver: the files are made again, no harm
		}
		_, err := fc.FileControlPersistWAL("main", 1)
		return err
	})
}

// readerCacheKiB bounds each reading connection's page cache (SQLite's
// default is 2,000 KiB). Readers read a window, a tail, a search's hits:
// pages read once, which the operating system's cache keeps anyway. With
// the default, opening a 100,000-part session filled the cache with the
// skeleton's scattered rows and added 1.5 MiB to a headless run's peak
// memory (issue 36, BenchmarkResumeRun); the pool's four connections
// could hold 8 MB. 512 KiB still filled with a 10,000-part session's
// window (0.8 MiB of anonymous memory with the pages' headers); with 128
// the run makes 231 reads of the file instead of 211 (pages
// read again from the operating system's cache) and the run's peak is
// 0.7 MiB lower. The price is paid by a process that reads the same
// rows again and again: reading a 1,300-part history whole 200 times in
// one process took 8.6 ms of CPU a time against 7.6 with 512 KiB.
const readerCacheKiB = 128

// openReaders opens the pool of reading connections.
func openReaders(path string, readOnly, immutable bool) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", readerCacheKiB))
	if readOnly {
		q.Set("mode", "ro")
	}
	if immutable {
		q.Set("immutable", "1")
	}
	u := url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: q.Encode()}
	rdb, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, fmt.Errorf("open %s for reading: %w", path, err)
	}
	rdb.SetMaxOpenConns(4)
	rdb.SetMaxIdleConns(4)
	return rdb, nil
}

// readImmutable decides how a read-only open reads: immutable when this
// process cannot write the directory or the database and the WAL's files
// are not both there to read through.
func readImmutable(dirWritable, dbWritable, walFilesExist bool) bool {
	return !(dirWritable && dbWritable) && !walFilesExist
}

// writable reports whether this process may write path (W_OK; false on a
// read-only file system).
func writable(path string) bool {
	const write = 0x2 // W_OK
	return syscall.Access(path, write) == nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// prepareDataDir makes sure dataDir exists (created 0700) and is a writable
// directory, and returns its absolute path.
func prepareDataDir(dataDir string) (string, error) {
	if dataDir == "" {
		return "", errors.New("open store: no data dir given")
	}
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return "", fmt.Errorf("open store: data dir %s: %w", dataDir, err)
	}
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create data dir %s: %w", dir, err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// MkdirAll's mode is filtered by the umask; set it exactly.
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", fmt.Errorf("create data dir %s: %w", dir, err)
		}
	}
	const writeAndSearch = 0x2 | 0x1 // W_OK | X_OK
	if err := syscall.Access(dir, writeAndSearch); err != nil {
		return "", fmt.Errorf("data dir %s is not writable: %w", dir, err)
	}
	return dir, nil
}

// createDBFile creates agent.db with mode 0600 before SQLite opens it, or
// checks that an existing one can be written.
func createDBFile(dir, path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		defer f.Close()
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("create %s: %w", path, err)
		}
		return nil
	case errors.Is(err, fs.ErrExist):
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("open %s for writing: %w", path, err)
		}
		return f.Close()
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("data dir %s is not writable: %w", dir, err)
	default:
		return fmt.Errorf("create %s: %w", path, err)
	}
}

// restrictFiles sets agent.db's -wal and -shm files to 0600. SQLite gives
// them the database file's mode already; this covers files left by older
// versions or other tools.
func restrictFiles(path string) error {
	for _, p := range []string{path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restrict %s: %w", p, err)
		}
	}
	return nil
}

// Times are stored as Unix nanoseconds; 0 is the zero time.
func toUnix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnix(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// now is the current time without its monotonic reading, so values read
// back from the database compare equal with ==.
func now() time.Time { return time.Now().Round(0) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
