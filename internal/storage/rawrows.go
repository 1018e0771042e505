package storage

// rawrows.go: reading a query's rows through the SQLite driver itself,
// not database/sql's Rows (issue 36, resume4). A resumed run's window is
// ≈ 300 messages of 19 columns and ≈ 700 parts of 7: database/sql's Scan
// locks the rows and converts each cell by reflection (an int64 into an
// int64 is reflect's Set), which was a quarter of reading the window.
// Here each row's driver values — modernc.org/sqlite gives int64,
// float64, string (a fresh Go copy of the cell, safe to keep), []byte
// (a fresh copy) or nil — land in one reused []driver.Value and the
// caller takes what it keeps by a type switch (rawCells: str, int,
// float): a cell of another type is an error naming the column, never
// a silent zero. The caller holds a database/sql Conn whose transaction
// is open: the driver connection is the same, and so is its snapshot.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// rawQuery runs query on conn's driver connection with args (bound by
// position) and calls row with each row's values, in order, until the
// rows end or row fails. The slice is reused: row keeps the values it
// needs, not the slice.
func rawQuery(ctx context.Context, conn *sql.Conn, query string, args []any, row func([]driver.Value) error) error {
	return conn.Raw(func(dc any) error {
		q, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("raw query: driver connection %T cannot query", dc)
		}
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := q.QueryContext(ctx, query, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]driver.Value, len(rows.Columns()))
		for {
			if err := rows.Next(dest); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			if err := row(dest); err != nil {
				return err
			}
		}
	})
}

// rawCells reads a row's cells by column, remembering the first cell of
// an unexpected type: the row is then refused with that column's name.
type rawCells struct {
	row  []driver.Value
	cols []string // the columns' names, for the error
	err  error
}

func (c *rawCells) bad(i int, want string) {
	if c.err == nil {
		c.err = fmt.Errorf("column %s: %T where %s was expected", c.cols[i], c.row[i], want)
	}
}

// str returns column i, a TEXT cell.
func (c *rawCells) str(i int) string {
	switch v := c.row[i].(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	c.bad(i, "text")
	return ""
}

// int returns column i, an INTEGER cell.
func (c *rawCells) int(i int) int64 {
	if v, ok := c.row[i].(int64); ok {
		return v
	}
	c.bad(i, "an integer")
	return 0
}

// float returns column i, a REAL cell (an integer read as one).
func (c *rawCells) float(i int) float64 {
	switch v := c.row[i].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	}
	c.bad(i, "a real")
	return 0
}
