package storage

import "testing"

func TestReadImmutable(t *testing.T) {
	tests := []struct {
		dir, db, wal bool
		want         bool
	}{
		{true, true, false, false}, // the normal case: SQLite makes what it needs
		{true, true, true, false},
		{false, true, false, true}, // cannot create -wal/-shm
		{true, false, false, true}, // would create them unwritable for the owner
		{false, false, false, true},
		{false, false, true, false}, // a writer's WAL is there: read through it
	}
	for _, tt := range tests {
		if got := readImmutable(tt.dir, tt.db, tt.wal); got != tt.want {
			t.Errorf("readImmutable(dir %v, db %v, wal %v) = %v, want %v", tt.dir, tt.db, tt.wal, got, tt.want)
		}
	}
}
