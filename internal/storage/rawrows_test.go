package storage

import (
	"database/sql/driver"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// A row read through the driver (rawrows.go) whose cell has another type
// than its column's is refused with the column's name, not read as a
// zero; a good row reads as database/sql's Scan reads it.
func TestRawCellsRefuseAnotherType(t *testing.T) {
	good := []driver.Value{"m1", "user", "", int64(1), int64(0), "gpt", "stop", "", int64(10), int64(20),
		int64(0), int64(3), int64(0), float64(0.5), int64(1e18), int64(1e18 + 1), int64(0), ""}
	var m message.Message
	c := rawCells{row: good, cols: messageColumnNames()}
	messageFromCells(&c, &m)
	if c.err != nil {
		t.Fatal(c.err)
	}
	if m.ID != "m1" || m.Role != message.RoleUser || !m.Summary || m.Usage.Output != 20 || m.CostUSD != 0.5 || !m.FinishedAt.IsZero() || m.CreatedAt.UnixNano() != 1e18 {
		t.Errorf("read %+v", m)
	}
	for i, bad := range map[int]driver.Value{2: nil, 3: "1", 13: "0.5", 16: 1.5} {
		row := append([]driver.Value(nil), good...)
		row[i] = bad
		c := rawCells{row: row, cols: messageColumnNames()}
		messageFromCells(&c, &m)
		if c.err == nil || !strings.Contains(c.err.Error(), "column "+messageColumnNames()[i]+":") {
			t.Errorf("cell %d = %#v: error %v, want one naming column %s", i, bad, c.err, messageColumnNames()[i])
		}
	}
}

// The window's rows read through the driver are those database/sql reads
// (the whole history's, LoadHistory), in a session whose parts are of
// every kind the window test session holds.
func TestWindowReadThroughTheDriverReadsAsScan(t *testing.T) {
	s := benchStore(t, t.TempDir())
	sess := windowSession(t, s, 60, 20)
	w, whole := windowAndHistory(t, s, sess.ID)
	for i := range w {
		if !reflect.DeepEqual(w[i], whole[i]) {
			t.Fatalf("entry %d: window %+v, history %+v", i, w[i], whole[i])
		}
	}
}
