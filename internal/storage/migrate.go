package storage

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Migrations only move forward: each file in migrations/ is named
// NNNN_what.sql, is applied once in its own transaction, and is never edited
// after release. PRAGMA user_version holds the number of the last one
// applied.

//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations are read from migrationFiles the first time a database
// needs them: a start on a current schema reads only how many there are
// (latestVersion), not their text.
var migrations = sync.OnceValue(func() []migration { return mustLoadMigrations(migrationFiles) })

// migrationCount is how many migration files there are; loadMigrations
// checks, when they are read, that they are numbered 1 to that.
var migrationCount = sync.OnceValue(func() int {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		panic(err)
	}
	return len(names)
})

func mustLoadMigrations(fsys fs.FS) []migration {
	ms, err := loadMigrations(fsys)
	if err != nil {
		panic(err)
	}
	return ms
}

// loadMigrations reads the migration files in order and checks that their
// numbers run 1, 2, 3… without gaps.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	var ms []migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("load migrations: %s is not named NNNN_name.sql", base)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("load migrations: %w", err)
		}
		ms = append(ms, migration{version: version, name: base, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("load migrations: %s: expected number %d", m.name, i+1)
		}
	}
	return ms, nil
}

// latestVersion is the schema version this binary writes.
func latestVersion() int { return migrationCount() }

// schemaError reports a database whose schema version is not this binary's.
type schemaError struct{ found, known int }

func (e *schemaError) Error() string {
	switch {
	case e.found > e.known:
		return fmt.Sprintf("%s was written by a newer agent (schema %d > %d); upgrade agent", DBName, e.found, e.known)
	case e.found == 0:
		return fmt.Sprintf("%s has no schema yet; open it read-write once (any command that records a session) to create it", DBName)
	default:
		return fmt.Sprintf("%s has an older schema (%d < %d); open it read-write once (any command that records a session) to upgrade it", DBName, e.found, e.known)
	}
}

func (e *schemaError) Is(target error) bool {
	return (target == ErrNewerSchema && e.found > e.known) ||
		(target == ErrOlderSchema && e.found < e.known)
}

// migrate applies the migrations the database lacks, refusing a database
// whose schema is newer than this binary's.
func (s *Store) migrate(ctx context.Context) error {
	known := latestVersion()
	version, err := s.userVersion(ctx)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version > known {
		return &schemaError{found: version, known: known}
	}
	if version == known {
		return nil
	}
	for _, m := range migrations()[version:] {
		if err := s.applyMigration(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) userVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// applyMigration runs one migration and records its number in the same
// transaction. Another process may have applied it meanwhile: the version
// is read again under the write lock.
func (s *Store) applyMigration(ctx context.Context, m migration) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate to schema %d: %w", m.version, err)
	}
	defer tx.Rollback()
	var current int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("migrate to schema %d: %w", m.version, err)
	}
	if current >= m.version {
		if current > latestVersion() {
			return &schemaError{found: current, known: latestVersion()}
		}
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migrate to schema %d (%s): %w", m.version, m.name, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return fmt.Errorf("migrate to schema %d: %w", m.version, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate to schema %d: %w", m.version, err)
	}
	return nil
}
